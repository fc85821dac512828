/**
 * The PDS client as the bridge's flows use it: the `/api/v1` workflow (`createPdsClient`, the
 * `PdsClient` port), its errors, wire types, credentials and retry policy. The `/v1` families are in
 * ./v1/index.ts, which the `pds` command line and the simulator import and no Lambda bundles. Other
 * modules import packages/bridge/src/pds through these two entries only (test/unit/module-surfaces.test.ts); the
 * transport, answers and paths stay inside.
 *
 * @example
 * ```ts
 * import { createPdsClient, resolveCredentials } from '@pds-bridge/bridge/pds';
 * const pds = createPdsClient({ baseUrl: process.env.PDS_BASE_URL!, credentials: await resolveCredentials() });
 * const entries = await pds.uploadGathering({ filePath: 'items.csv', contentType: 'text/csv' });
 * ```
 */
export type { PdsClientOptions } from './client.ts';
export { createPdsClient } from './client.ts';
export type { ResolveCredentialsOptions, SecretReader } from './credentials.ts';
export {
  chooseCredentials,
  readSecretCredentials,
  resolveCredentials,
  SECRET_CREDENTIALS_ACTIONS,
} from './credentials.ts';
export type { PdsErrorCode, PdsRequestLine } from './errors.ts';
export {
  PdsBadRequestError,
  PdsConflictError,
  PdsError,
  PdsHttpError,
  PdsInvalidRequestError,
  PdsInvalidResponseError,
  PdsNetworkError,
  PdsNotFoundError,
  PdsRateLimitedError,
  PdsRequestBodyError,
  PdsServerError,
  PdsTimeoutError,
  PdsUnauthorizedError,
  PdsUploadSourceError,
} from './errors.ts';
export type { FileUploadSource, StreamUploadSource, UploadSource } from './multipart.ts';
export type { PdsCallOptions } from './options.ts';
export type { ClosablePdsClient, MessagingAssetListOptions, PdsClient } from './ports.ts';
export type { RetryOptions } from './retry.ts';
export { pdsBackoff, retryAfterOf, retryDelayMs } from './retry.ts';
export type { PdsAnswerEvent, PdsCredentials, PdsRetryEvent } from './transport.ts';
export type {
  CommunicationChannel,
  Destination,
  DestinationType,
  GatheringEntry,
  ImportRequest,
  Item,
  MessagingAssetSummary,
  Passthrough,
  PublicationRequest,
  Selection,
  SelectionRequest,
  SupplierReview,
  ValidationRequest,
  ValidationResponse,
  ValidationResult,
} from './types.ts';
export { DESTINATION_TYPES } from './types.ts';
