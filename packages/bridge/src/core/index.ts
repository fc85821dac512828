/**
 * The shared core of the bridge: the log and metrics ports, the error base and log fields, the retry policy,
 * bounded concurrency, option checks, the http(s) base-address check and the trace context of the
 * work in progress. No AWS SDK, no Powertools import.
 */
export { type BaseUrlCheck, type BaseUrlFault, checkBaseUrl } from './base-url.ts';
export {
  awsCallMayPass,
  BridgeError,
  type BridgeErrorOptions,
  ConfigError,
  type ConfigErrorOptions,
  errorFields,
  errorSummary,
  OptionError,
  UsageError,
} from './errors.ts';
export { hasEscapedKey, parseJson, parseJsonOr } from './json.ts';
export { type Log, type LogExtra, silentLog } from './log.ts';
export { addCounts, type Metrics, type MetricUnit, noopMetrics } from './metrics.ts';
export {
  checkDurationMs,
  checkInteger,
  type IntegerBounds,
  isIntegerInRange,
  type OptionErrorFactory,
} from './options.ts';
export { createLimiter, type Limiter, type MapLimitOptions, mapAll, mapLimit, type Settled } from './pool.ts';
export {
  type BackoffPolicy,
  backoffDelayMs,
  currentRetryScope,
  isRetryable,
  RETRY_COST,
  RetryBudget,
  type RetryEvent,
  type RetryPolicy,
  type RetryRun,
  type RetryScope,
  retry,
  retryAfterDelayMs,
  retryDelay,
  retryEach,
  sleep,
  TIMEOUT_COST,
  withRetryScope,
} from './retry.ts';
export { boundedText, MAX_ERROR_TEXT, terminalText } from './text.ts';
export {
  continueTrace,
  continuingTrace,
  currentTraceparent,
  formatTraceparent,
  newTraceparent,
  parseTraceparent,
  TRACEPARENT_ATTRIBUTE,
  type TracedMessage,
  type TraceParent,
  traceparentFromXRay,
  withTraceparent,
} from './trace-context.ts';
