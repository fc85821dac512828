/**
 * The W3C trace context (https://www.w3.org/TR/trace-context/) of the work in progress, so that every
 * event the bridge emits names the trace that produced it (`traceparent`, the CloudEvents
 * distributed-tracing extension) and a consumer can continue that trace.
 *
 * In Lambda the context comes from the X-Ray trace header of the invocation; where work continues
 * from a queue message it comes from the message; anywhere else (the local stack, tests) a fresh one
 * is made per unit of work. The handler edge (packages/bridge/src/lambda/handler.ts) sets it; code below reads it with
 * {@link currentTraceparent} and never passes it around.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';

/** `version-traceid-parentid-flags`, version 00, lower-case hex; all-zero ids are invalid. */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
/** An X-Ray trace id: `1-` + 8 hex digits of epoch seconds + `-` + 24 hex digits. */
const XRAY_ROOT = /^1-([0-9a-f]{8})-([0-9a-f]{24})$/i;
const XRAY_PARENT = /^[0-9a-f]{16}$/i;
const ZERO_TRACE_ID = '0'.repeat(32);
const ZERO_PARENT_ID = '0'.repeat(16);

/** The parts of a valid `traceparent`. */
export interface TraceParent {
  readonly traceId: string;
  readonly parentId: string;
  readonly sampled: boolean;
}

/**
 * The parts of a `traceparent` header, or `undefined` when it is not a valid version-00 value (upper
 * case, all-zero ids and other versions are refused, as the W3C specification tells a receiver to).
 *
 * @example
 * ```ts
 * parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
 * // { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', parentId: '00f067aa0ba902b7', sampled: true }
 * ```
 */
export function parseTraceparent(value: string | undefined): TraceParent | undefined {
  const match = value === undefined ? null : TRACEPARENT.exec(value.trim());
  if (!match) return undefined;
  const [, traceId = '', parentId = '', flags = ''] = match;
  if (traceId === ZERO_TRACE_ID || parentId === ZERO_PARENT_ID) return undefined;
  return { traceId, parentId, sampled: (Number.parseInt(flags, 16) & 1) === 1 };
}

/** The `traceparent` text of the given parts. */
export function formatTraceparent(parts: TraceParent): string {
  return `00-${parts.traceId}-${parts.parentId}-${parts.sampled ? '01' : '00'}`;
}

/**
 * The `traceparent` of an X-Ray trace header (`Root=1-5759e988-bd862e3fe1be46a994272793;
 * Parent=53995c3f42cd8ad8;Sampled=1`, as in `_X_AMZN_TRACE_ID` or an SQS record's `AWSTraceHeader`):
 * the trace id is the root without its `1-` and dash, the parent id is `Parent`, and the sampled flag
 * is set only for `Sampled=1`. `undefined` without a valid `Root` and `Parent`.
 *
 * @example
 * ```ts
 * traceparentFromXRay('Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1');
 * // '00-5759e988bd862e3fe1be46a994272793-53995c3f42cd8ad8-01'
 * ```
 */
export function traceparentFromXRay(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const fields = new Map<string, string>();
  for (const field of header.split(';')) {
    const separator = field.indexOf('=');
    if (separator > 0) fields.set(field.slice(0, separator).trim(), field.slice(separator + 1).trim());
  }
  const root = XRAY_ROOT.exec(fields.get('Root') ?? '');
  const parentId = fields.get('Parent') ?? '';
  if (!root || !XRAY_PARENT.test(parentId)) return undefined;
  const parts = {
    traceId: `${root[1]}${root[2]}`.toLowerCase(),
    parentId: parentId.toLowerCase(),
    sampled: fields.get('Sampled') === '1',
  };
  const traceparent = formatTraceparent(parts);
  // All-zero ids match the patterns but name no trace.
  return parseTraceparent(traceparent) ? traceparent : undefined;
}

/**
 * A fresh `traceparent`: random trace and parent ids, not sampled (nothing recorded the work it
 * names). For work that starts outside any traced caller, such as the local stack.
 */
export function newTraceparent(): string {
  for (;;) {
    const traceId = randomHex(16);
    const parentId = randomHex(8);
    if (traceId !== ZERO_TRACE_ID && parentId !== ZERO_PARENT_ID) {
      return formatTraceparent({ traceId, parentId, sampled: false });
    }
  }
}

/**
 * Random bytes are drawn from the system's generator a block at a time and handed out in order, each
 * byte once (as `crypto.randomUUID` does): outside a traced invocation every event gets a fresh
 * trace, and two calls into the generator per event cost more than building the rest of the event.
 */
const RANDOM_BLOCK_BYTES = 4096;
let randomBlock = Buffer.alloc(0);
let randomOffset = 0;

/** `bytes` fresh random bytes as lower-case hex. */
function randomHex(bytes: number): string {
  if (randomOffset + bytes > randomBlock.length) {
    randomBlock = randomBytes(RANDOM_BLOCK_BYTES);
    randomOffset = 0;
  }
  const hex = randomBlock.toString('hex', randomOffset, randomOffset + bytes);
  randomOffset += bytes;
  return hex;
}

const context = new AsyncLocalStorage<string>();

/**
 * Runs `work` as one unit of work of the trace `traceparent` (a fresh one when it is missing or not
 * valid): {@link currentTraceparent} returns it anywhere inside, across awaits.
 *
 * @example
 * ```ts
 * await withTraceparent(traceparentFromXRay(process.env._X_AMZN_TRACE_ID), () => handle(event));
 * ```
 */
export function withTraceparent<T>(traceparent: string | undefined, work: () => T): T {
  const valid = parseTraceparent(traceparent) ? (traceparent as string).trim() : newTraceparent();
  return context.run(valid, work);
}

/**
 * The `traceparent` of the unit of work in progress; outside any (a script building an event) a fresh
 * one, so whoever receives what is built always gets a valid value.
 */
export function currentTraceparent(): string {
  return context.getStore() ?? newTraceparent();
}

/** The parts of a queue message (an SQS record as Lambda delivers it) that can carry a trace. */
export interface TracedMessage {
  readonly messageAttributes?: Readonly<Record<string, { readonly stringValue?: string } | undefined>>;
  readonly attributes?: { readonly AWSTraceHeader?: string };
}

/**
 * Name of the message attribute in which the bridge hands the trace to the work it queues (the
 * publication queue, the review fan-out).
 */
export const TRACEPARENT_ATTRIBUTE = 'traceparent';

/**
 * Runs `work`, the processing of one queue message, in the trace the message continues: its
 * `traceparent` attribute, else the X-Ray header SQS keeps for a traced sender (`AWSTraceHeader`),
 * else the trace already in progress (the invocation's).
 *
 * @example
 * ```ts
 * await processPartialResponse(event, (record) => continueTrace(record, () => handle(record)), processor);
 * ```
 */
export function continueTrace<T>(message: TracedMessage, work: () => T): T {
  const traceparent =
    [
      message.messageAttributes?.[TRACEPARENT_ATTRIBUTE]?.stringValue,
      traceparentFromXRay(message.attributes?.AWSTraceHeader),
    ].find((candidate) => parseTraceparent(candidate) !== undefined) ?? currentTraceparent();
  return withTraceparent(traceparent, work);
}

/**
 * `handle`, each call of it run in the trace its message continues ({@link continueTrace}): for the
 * record handler of a queue.
 *
 * @example
 * ```ts
 * await processPartialResponse(event, continuingTrace(recordHandler), processor);
 * ```
 */
export function continuingTrace<M extends TracedMessage, R>(handle: (message: M) => R): (message: M) => R {
  return (message) => continueTrace(message, () => handle(message));
}
