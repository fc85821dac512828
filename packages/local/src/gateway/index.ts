/**
 * A local HTTP front for Lambda handlers written for API Gateway HTTP APIs (payload 2.0): requests
 * become events, results become answers. Used by the local stack and the benchmarks.
 */
export { type LocalContextOptions, localLambdaContext } from './context.ts';
export { HandlerResultError } from './errors.ts';
export { type EventOptions, type HttpRequestInput, isTextContentType, toApiGatewayV2Event } from './event.ts';
export { type HttpAnswer, toHttpAnswer } from './result.ts';
export {
  type ApiGatewayV2Handler,
  DEFAULT_MAX_BODY_BYTES,
  type HttpAdapterOptions,
  type RunningHttpAdapter,
  startHttpAdapter,
} from './server.ts';
export {
  isSigV4Signed,
  type SigV4Credentials,
  type SigV4Verdict,
  sigV4Authorizer,
  verifySigV4,
} from './sigv4.ts';
