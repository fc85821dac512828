/**
 * The typed PDS client: `createPdsClient` builds a {@link PdsClient} over HTTP; every failure is a
 * `PdsError` subclass from `errors.ts`.
 *
 * @example
 * ```ts
 * import { createPdsClient, resolveCredentials } from '../lib/pds/index.ts';
 * const pds = createPdsClient({ baseUrl: process.env.PDS_BASE_URL!, credentials: await resolveCredentials() });
 * const entries = await pds.uploadGathering({ filePath: 'items.csv', contentType: 'text/csv' });
 * ```
 */
export { PdsRequestBodyError } from './body-error.ts';
export type { ClosablePdsClient, PdsCallOptions, PdsClient, PdsClientOptions } from './client.ts';
export { createPdsClient } from './client.ts';
export { PdsConfigurationError } from './configuration-error.ts';
export type { ResolveCredentialsOptions, SecretReader } from './credentials.ts';
export { resolveCredentials } from './credentials.ts';
export * from './errors.ts';
export type { FileUploadSource, MultipartBody, StreamUploadSource, UploadSource } from './multipart.ts';
export { createMultipartBody, escapeFileName } from './multipart.ts';
export { encodePathSegment, pathOf } from './paths.ts';
export type { RetryOptions } from './retry.ts';
export { DEFAULT_RETRY, parseRetryAfter } from './retry.ts';
export type {
  PdsCredentials,
  PdsExpect,
  PdsHttpMethod,
  PdsRequest,
  PdsRequestBody,
  PdsResponse,
  PdsResponseBody,
  PdsResponseHeaders,
  PdsRetryEvent,
  PdsTransportOptions,
} from './transport.ts';
export { PdsTransport, USER_AGENT } from './transport.ts';
export * from './types.ts';
export { PdsWorkflow } from './workflow.ts';
