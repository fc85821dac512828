/**
 * AWS SDK clients, created once per process and reused across invocations.
 *
 * The SDK reads AWS_REGION, AWS_ENDPOINT_URL and the service-specific AWS_ENDPOINT_URL_S3 /
 * AWS_ENDPOINT_URL_SQS itself (unless AWS_IGNORE_CONFIGURED_ENDPOINT_URLS is true), so the factories
 * do not pass an endpoint. They only add what an overridden endpoint needs on top:
 *
 * - S3 uses path-style addressing: local emulators have no wildcard DNS for `bucket.host` names.
 * - SQS sends to the configured endpoint instead of the queue URL's host: the SDK would otherwise
 *   follow the host inside the queue URL (emulators hand out names such as `sqs.us-east-1.localhost`
 *   that do not resolve) and print a warning on every call.
 */
import { EventBridgeClient, type EventBridgeClientConfig } from '@aws-sdk/client-eventbridge';
import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { errorTypeRegistries, SQSClient, type SQSClientConfig } from '@aws-sdk/client-sqs';
import { AwsJson1_0Protocol, JsonCodec } from '@aws-sdk/core/protocols';

/** Fail fast on an unreachable endpoint instead of waiting for the OS connect timeout. */
const CONNECTION_TIMEOUT_MS = 5_000;

/**
 * What every client gets: the connect timeout, and its middleware resolved once per command class
 * instead of on every request (`cacheMiddleware`; resolving it cost 8 % of an S3 request's CPU,
 * docs/benchmarks.md, "The SDK's cost per request"). Middleware added after a command class was
 * first sent is then not used for it: the tracer attaches to the clients at cold start, before any
 * invocation sends (packages/bridge/src/lambda/tracing.ts).
 */
const COMMON = { requestHandler: { connectionTimeout: CONNECTION_TIMEOUT_MS }, cacheMiddleware: true };

type Env = Record<string, string | undefined>;

function ignoresConfiguredEndpoints(env: Env): boolean {
  return env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS?.trim().toLowerCase() === 'true';
}

/**
 * The endpoint the SDK will use for a service from the environment, or `undefined` for AWS's own.
 * `service` is the suffix of the variable: `S3`, `SQS`.
 *
 * @example
 * ```ts
 * configuredEndpoint('S3', { AWS_ENDPOINT_URL: 'http://127.0.0.1:4566' }); // 'http://127.0.0.1:4566'
 * ```
 */
export function configuredEndpoint(service: string, env: Env = process.env): string | undefined {
  if (ignoresConfiguredEndpoints(env)) return undefined;
  return env[`AWS_ENDPOINT_URL_${service}`] || env.AWS_ENDPOINT_URL || undefined;
}

/**
 * A new S3 client; path-style addressing when the S3 endpoint is overridden.
 * `overrides` win over everything (tests pass credentials or an endpoint here).
 *
 * @example
 * ```ts
 * const s3 = createS3Client();
 * ```
 */
export function createS3Client(overrides: S3ClientConfig = {}): S3Client {
  const pathStyle = configuredEndpoint('S3') !== undefined || overrides.endpoint !== undefined;
  return new S3Client({
    ...COMMON,
    ...(pathStyle ? { forcePathStyle: true } : {}),
    ...overrides,
  });
}

/**
 * SQS's own protocol (the settings the SDK's client uses, held equal by test/unit/aws.test.ts) with
 * the SDK's JSON codec that writes a request with `JSON.stringify`. The default since July 2026
 * writes it a character at a time into a byte buffer, which for the bridge's requests (ten message
 * bodies of a few KiB of JSON each) costs about 15% more CPU per event published
 * (docs/benchmarks.md#poll); the bytes sent are the same JSON.
 */
function sqsProtocol(): AwsJson1_0Protocol {
  return new AwsJson1_0Protocol({
    defaultNamespace: 'com.amazonaws.sqs',
    errorTypeRegistries,
    serviceTarget: 'AmazonSQS',
    awsQueryCompatible: true,
    jsonCodec: new JsonCodec({ timestampFormat: { useTrait: true, default: 7 }, jsonName: false }),
  });
}

/**
 * A new SQS client; when the SQS endpoint is overridden, requests go there whatever host the queue URL names.
 *
 * @example
 * ```ts
 * const sqs = createSqsClient();
 * ```
 */
export function createSqsClient(overrides: SQSClientConfig = {}): SQSClient {
  const overridden = configuredEndpoint('SQS') !== undefined || overrides.endpoint !== undefined;
  return new SQSClient({
    ...COMMON,
    protocol: sqsProtocol(),
    // No MD5 of every message body sent and received: the request's SigV4 signature covers the body's
    // SHA-256, which SQS checks, and TLS the answer; the MD5 pass cost the poller 2.5 % of its CPU
    // (docs/benchmarks.md, "The poller's backlog profiled alone").
    md5: false,
    ...(overridden ? { useQueueUrlAsEndpoint: false } : {}),
    ...overrides,
  });
}

/**
 * A new EventBridge client (AWS_ENDPOINT_URL_EVENTBRIDGE or AWS_ENDPOINT_URL reach an emulator).
 *
 * @example
 * ```ts
 * const events = createEventBridgeClient();
 * ```
 */
export function createEventBridgeClient(overrides: EventBridgeClientConfig = {}): EventBridgeClient {
  return new EventBridgeClient({
    ...COMMON,
    ...overrides,
  });
}

let cachedS3: S3Client | undefined;
let cachedSqs: SQSClient | undefined;
let cachedEventBridge: EventBridgeClient | undefined;

/**
 * The process-wide S3 client, created on first use from the environment at that moment.
 *
 * @example
 * ```ts
 * await s3Client().send(new GetObjectCommand({ Bucket, Key }));
 * ```
 */
export function s3Client(): S3Client {
  cachedS3 ??= createS3Client();
  return cachedS3;
}

/** The process-wide SQS client, created on first use. */
export function sqsClient(): SQSClient {
  cachedSqs ??= createSqsClient();
  return cachedSqs;
}

/** The process-wide EventBridge client, created on first use. */
export function eventBridgeClient(): EventBridgeClient {
  cachedEventBridge ??= createEventBridgeClient();
  return cachedEventBridge;
}

/**
 * Destroys the process-wide clients so the next call builds new ones from the current environment.
 * For tests and the local stack, which change endpoints within one process.
 */
export function resetAwsClients(): void {
  cachedS3?.destroy();
  cachedSqs?.destroy();
  cachedEventBridge?.destroy();
  cachedEventBridge = undefined;
  cachedS3 = undefined;
  cachedSqs = undefined;
}
