/**
 * One error model (docs/architecture.md, Errors): every error class in the packages extends BridgeError, so
 * every failure in the logs carries a stable `code` and an honest `retryable`, and every code an
 * operator can meet is in docs/operations.md's table.
 *
 * The classes are found by reading the packages' sources, so a new error class fails this test until it
 * extends BridgeError and has a row in SAMPLES (how to build one, and the code it must carry).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BridgeError } from '../../packages/bridge/src/core/index.ts';
import { CONSUMER_ERROR_CODES } from '../../packages/consumer/src/errors.ts';
import { packageSourceFiles } from '../helpers/module-imports.ts';

const root = path.resolve(import.meta.dirname, '../..');

/** `[file, class, parent]` of every `class X extends Y` in the packages. */
function declaredClasses(): Array<[string, string, string]> {
  const found: Array<[string, string, string]> = [];
  for (const file of packageSourceFiles()) {
    const source = readFileSync(path.join(root, file), 'utf8');
    for (const match of source.matchAll(/^(?:export )?class (\w+) extends (\w+)/gm)) {
      found.push([file, match[1] as string, match[2] as string]);
    }
  }
  return found;
}

/** The error classes: those whose parent chain, read from the sources, reaches an Error. */
function errorClasses(): Array<[string, string, string]> {
  const all = declaredClasses();
  const parents = new Map(all.map(([, name, parent]) => [name, parent]));
  const isError = (name: string, depth = 0): boolean => {
    if (/^(?:Error|RangeError|TypeError|AggregateError|BridgeError)$/.test(name)) return true;
    const parent = parents.get(name);
    return parent !== undefined && depth < 10 && isError(parent, depth + 1);
  };
  return all.filter(([, name]) => isError(name));
}

/** Error classes that live outside their module's errors.ts, and why. */
const ELSEWHERE: Record<string, string> = {
  ApiProblem:
    'packages/bridge/src/api/problem.ts: the problem-document model of the HTTP API, not only an error',
  AnswerTooLargeError:
    'packages/bridge/src/pds/transport.ts: private, becomes a PdsInvalidResponseError there',
  BodyTooLargeError: 'packages/local/src/gateway/server.ts: private, becomes a 413 answer there',
};

/** Modules whose exports are loaded to check the classes at run time. */
async function exportsOf(file: string): Promise<Record<string, unknown>> {
  return (await import(path.join(root, file))) as Record<string, unknown>;
}

describe('the error model', () => {
  it('makes every error class in the packages extend BridgeError', () => {
    // prepare
    const classes = errorClasses();
    const parents = new Map(classes.map(([, name, parent]) => [name, parent]));
    const reachesBridgeError = (name: string): boolean => {
      let current = parents.get(name);
      for (let depth = 0; depth < 10 && current !== undefined; depth++) {
        if (current === 'BridgeError') return true;
        current = parents.get(current);
      }
      return false;
    };

    // act
    const outside = classes
      .filter(([, name]) => name !== 'BridgeError')
      .filter(([, name]) => !reachesBridgeError(name))
      .map(([file, name, parent]) => `${file}: ${name} extends ${parent}`);

    // assess
    expect(outside).toEqual([]);
  });

  it("keeps each module's error classes in its errors.ts", () => {
    // act
    const elsewhere = errorClasses()
      .filter(([file, name]) => !file.endsWith('/errors.ts') && ELSEWHERE[name] === undefined)
      .map(([file, name]) => `${file}: ${name}`);

    // assess: move the class to packages/bridge/src/<module>/errors.ts
    expect(elsewhere).toEqual([]);
  });

  it('gives every exported error class a stable code and a boolean retryable', async () => {
    // prepare
    const problems: string[] = [];

    // act
    for (const [file, name] of errorClasses()) {
      if (name === 'BridgeError') continue;
      const exported = (await exportsOf(file))[name];
      if (exported === undefined) continue; // a module-private class: checked by its parent above
      const sample = SAMPLES[name];
      if (!sample) {
        problems.push(`${file}: ${name} has no row in SAMPLES`);
        continue;
      }
      const error = sample.build(exported as new (...args: never[]) => Error);
      const { code, retryable } = error as { code?: unknown; retryable?: unknown };
      if (!(error instanceof BridgeError)) {
        problems.push(`${name} is not a BridgeError`);
      }
      if (error.name !== name) problems.push(`${name}: name is ${error.name}`);
      if (code !== sample.code) problems.push(`${name}: code ${String(code)}, expected ${sample.code}`);
      if (typeof retryable !== 'boolean') problems.push(`${name}: retryable is not a boolean`);
      else if (retryable !== RETRYABLE.has(name)) problems.push(`${name}: retryable is ${retryable}`);
    }

    // assess
    expect(problems).toEqual([]);
  });

  it('documents every code in docs/operations.md', () => {
    // prepare
    const operations = readFileSync(path.join(root, 'docs/operations.md'), 'utf8');

    // act
    const missing = Object.values(SAMPLES)
      .flatMap((sample) => [sample.code, ...(sample.alsoCodes ?? [])])
      .filter((code) => !operations.includes(`\`${code}\``));

    // assess
    expect([...new Set(missing)]).toEqual([]);
  });
});

/**
 * The classes whose sample is retryable. The flows decide retry or permanent failure by class or by
 * `retryable`, so a change here is a change of behaviour: it must be meant.
 */
const RETRYABLE = new Set([
  'PdsError', // built retryable below
  'PdsRateLimitedError',
  'PdsServerError',
  'PdsTimeoutError',
  'PdsNetworkError',
  'PdsUploadSourceError',
  'StateConflictError',
  'ProgressLayoutChangedError',
  'EventPublishError',
  'IngestInProgressError',
  'PollIncompleteError',
  'ReviewFanOutError',
  'PublicationRetryError',
  'PublicationQueueError',
  'RequestInProgressError',
  'IdempotencyContentionError',
  'ConfirmationDeadlineError',
]);

type AnyError = new (...args: never[]) => Error;

interface Sample {
  /** Builds one instance from the exported class. */
  build: (Class: AnyError) => Error;
  /** The code this instance must carry. */
  code: string;
  /** Other codes the class can carry (documented too). */
  alsoCodes?: string[];
}

const line = { method: 'GET', path: '/items' };
const object = { bucket: 'drops', key: 'in/items.csv' };

// biome-ignore lint/suspicious/noExplicitAny: each row calls its class's own constructor
const make = (Class: AnyError, ...args: unknown[]): Error => new (Class as any)(...args);

const SAMPLES: Record<string, Sample> = {
  // packages/bridge/src/core
  OptionError: { build: (C) => make(C, 'count', 'count must be positive'), code: 'INVALID_OPTION' },
  ConfigError: { build: (C) => make(C, 'PDS_BASE_URL is required'), code: 'CONFIG_INVALID' },
  UsageError: { build: (C) => make(C, 'unknown flag --x', 'folders ls'), code: 'USAGE' },
  // packages/bridge/src/pds
  PdsError: { build: (C) => make(C, 'NETWORK', 'x', line, true), code: 'NETWORK' },
  PdsHttpError: { build: (C) => make(C, 418, line, '', 'HTTP_ERROR'), code: 'HTTP_ERROR' },
  PdsBadRequestError: { build: (C) => make(C, 400, line, ''), code: 'BAD_REQUEST' },
  PdsUnauthorizedError: {
    build: (C) => make(C, 401, line, ''),
    code: 'UNAUTHORIZED',
    alsoCodes: ['FORBIDDEN'],
  },
  PdsNotFoundError: { build: (C) => make(C, 404, line, ''), code: 'NOT_FOUND' },
  PdsConflictError: { build: (C) => make(C, 409, line, ''), code: 'CONFLICT' },
  PdsRateLimitedError: { build: (C) => make(C, 429, line, '', 1000), code: 'RATE_LIMITED' },
  PdsServerError: { build: (C) => make(C, 503, line, ''), code: 'SERVER_ERROR' },
  PdsTimeoutError: { build: (C) => make(C, 'headers', 1000, line), code: 'TIMEOUT' },
  PdsNetworkError: { build: (C) => make(C, 'ECONNRESET', line, false), code: 'NETWORK' },
  PdsInvalidResponseError: { build: (C) => make(C, 'not JSON', line), code: 'INVALID_RESPONSE' },
  PdsInvalidRequestError: { build: (C) => make(C, 'bad body', line), code: 'INVALID_REQUEST' },
  PdsUploadSourceError: { build: (C) => make(C, 'read failed', line), code: 'UPLOAD_SOURCE' },
  PdsRequestBodyError: { build: (C) => make(C, 'size differs'), code: 'PDS_REQUEST_BODY_INVALID' },
  // packages/bridge/src/xml
  XmlParseError: {
    build: (C) => make(C, 'MALFORMED', 'bad'),
    code: 'MALFORMED',
    alsoCodes: ['TOO_LARGE', 'DOCTYPE_REFUSED', 'LIMIT_EXCEEDED', 'NAME_REFUSED'],
  },
  // packages/bridge/src/state
  StateConflictError: { build: (C) => make(C, 'k', 'changed'), code: 'STATE_CONFLICT' },
  StateKeyError: { build: (C) => make(C, 'k', 'empty'), code: 'STATE_KEY_INVALID' },
  StateValueError: { build: (C) => make(C, 'k', 'not JSON'), code: 'STATE_VALUE_INVALID' },
  StateStoreError: { build: (C) => make(C, 'k', 'denied', false), code: 'STATE_STORE_FAILED' },
  ProgressLayoutChangedError: { build: (C) => make(C, 1, 2), code: 'PROGRESS_LAYOUT_CHANGED' },
  ProgressLayoutError: { build: (C) => make(C, 'bad'), code: 'PROGRESS_LAYOUT_INVALID' },
  WatchListError: { build: (C) => make(C, 'empty key'), code: 'WATCH_LIST_KEY_INVALID' },
  // packages/bridge/src/events
  EventDataError: { build: (C) => make(C, 'pds.x', 'bad'), code: 'EVENT_DATA_INVALID' },
  EventPublishError: { build: (C) => make(C, [], ['e1']), code: 'EVENT_PUBLISH_FAILED' },
  ClaimCheckError: { build: (C) => make(C, 'no pointer'), code: 'CLAIM_CHECK_FAILED' },
  EventSerializationError: {
    build: (C) => make(C, { id: 'e1', type: 'pds.x' }, new RangeError('Invalid string length')),
    code: 'EVENT_NOT_SERIALISABLE',
  },
  // packages/bridge/src/ingest
  IngestEventError: { build: (C) => make(C, 'no Records'), code: 'INGEST_EVENT_INVALID' },
  IngestInProgressError: { build: (C) => make(C, 'p', 'leased'), code: 'INGEST_IN_PROGRESS' },
  ObjectSourceError: {
    build: (C) => make(C, object, 'gone', 'missing', false),
    code: 'OBJECT_SOURCE_FAILED',
  },
  IngestRejectedError: { build: (C) => make(C, 'no-entries', 'none'), code: 'INGEST_REJECTED' },
  IngestUnreadableError: {
    build: (C) => make(C, { file: 'items.csv', problem: 'line 2 has 1 field', fix: 'add one' }, 'g-1'),
    code: 'INGEST_UNREADABLE',
  },
  // packages/bridge/src/polling
  PollIncompleteError: { build: (C) => make(C, 'stopped'), code: 'POLL_INCOMPLETE' },
  PollInterruptedError: { build: (C) => make(C, 7, 5), code: 'POLL_INTERRUPTED' },
  ReviewChunkFormatError: { build: (C) => make(C, 'not JSON'), code: 'REVIEW_CHUNK_INVALID' },
  ReviewFanOutError: { build: (C) => make(C, 1, 2, 'denied'), code: 'REVIEW_FAN_OUT_FAILED' },
  CheckpointFormatError: { build: (C) => make(C, 'k', 'bad'), code: 'CHECKPOINT_INVALID' },
  // packages/bridge/src/publications, packages/bridge/src/api
  PublicationNotFoundError: { build: (C) => make(C, 'p1'), code: 'PUBLICATION_NOT_FOUND' },
  PublicationRetryError: { build: (C) => make(C, 'p1', 1, new Error('503')), code: 'PUBLICATION_RETRY' },
  PublicationQueueError: { build: (C) => make(C, 'p1', 'denied'), code: 'PUBLICATION_QUEUE_FAILED' },
  IdempotencyConflictError: { build: (C) => make(C, 'p1'), code: 'IDEMPOTENCY_KEY_REUSED' },
  RequestInProgressError: { build: (C) => make(C, 'p1', 1), code: 'REQUEST_IN_PROGRESS' },
  IdempotencyContentionError: { build: (C) => make(C), code: 'IDEMPOTENCY_CONTENTION' },
  ApiProblem: { build: (C) => make(C, 'not-found', 'no such publication'), code: 'API_PROBLEM' },
  InvalidPathError: { build: (C) => make(C, '%zz'), code: 'INVALID_PATH' },
  // packages/bridge/src/confirmations
  ConfirmationDeadlineError: {
    build: (C) => make(C, 1, 2, new Error('x')),
    code: 'CONFIRMATION_DEADLINES_INCOMPLETE',
  },
  // packages/consumer/src (codes are the kit's public failure codes)
  ConsumerError: {
    build: (C) => make(C, 'not-json', 'bad'),
    code: 'not-json',
    alsoCodes: [...CONSUMER_ERROR_CODES],
  },
  // packages/local/src/gateway
  HandlerResultError: { build: (C) => make(C, 'no statusCode'), code: 'HANDLER_RESULT_INVALID' },
  // packages/cli/src/ops
  OperatorTargetError: { build: (C) => make(C, 'no stage'), code: 'OPERATOR_TARGET_INVALID' },
  QueueNotFoundError: { build: (C) => make(C, 'q'), code: 'QUEUE_NOT_FOUND' },
  WhySubjectError: { build: (C) => make(C, '?'), code: 'WHY_SUBJECT_INVALID' },
  // packages/cli/src
  CliInputError: { build: (C) => make(C, 'not JSON'), code: 'CLI_INPUT_INVALID' },
  ConsoleInputError: { build: (C) => make(C, 'bad limit'), code: 'CONSOLE_INPUT_INVALID' },
  // packages/local/src
  PortInUseError: { build: (C) => make(C, 'the simulator', 4010, '--pds-port'), code: 'PORT_IN_USE' },
  EmulatorUnsupportedError: {
    build: (C) => make(C, 'fauxqs 9.9.9 is installed'),
    code: 'EMULATOR_UNSUPPORTED',
  },
  InvalidRecipientError: {
    build: (C) => make(C, 'recipient GLN "-" is not 13 digits'),
    code: 'CONFIRMATION_RECIPIENT_INVALID',
  },
  UnknownConfirmationStateError: {
    build: (C) => make(C, ['BOGUS'], ['AWAITING', 'REVIEW']),
    code: 'UNKNOWN_CONFIRMATION_STATE',
  },
  LocalStackStartedError: { build: (C) => make(C), code: 'LOCAL_STACK_STARTED' },
  StackFileError: { build: (C) => make(C, 'no stack'), code: 'STACK_FILE_MISSING' },
  LocalEventBridgeError: { build: (C) => make(C, 'no backend'), code: 'LOCAL_EVENTBRIDGE_UNAVAILABLE' },
  DemoStepError: { build: (C) => make(C, 'drop', 'late'), code: 'DEMO_STEP_FAILED' },
  // packages/simulator/src
  SimulatorHttpError: { build: (C) => make(C, 404, 'no item'), code: 'SIMULATOR_HTTP' },
  SimulatorOptionsError: { build: (C) => make(C, 'port out of range'), code: 'INVALID_OPTION' },
  ArchiveLimitError: {
    build: (C) => make(C, 'ARCHIVE_TOO_MANY_MEMBERS', 'a.zip', 'has too many members'),
    code: 'ARCHIVE_TOO_MANY_MEMBERS',
    alsoCodes: ['ARCHIVE_TOO_LARGE_EXPANDED', 'ARCHIVE_EXPANSION_RATIO'],
  },
  CsvFormatError: {
    build: (C) => make(C, 'open quote'),
    code: 'CSV_MALFORMED',
    alsoCodes: ['CSV_RECORD_TOO_LONG'],
  },
  // packages/bridge/src/webhooks
  WebhookError: {
    build: (C) => make(C, 'WEBHOOK_URL_REFUSED', 'http://10.0.0.1/ is private'),
    code: 'WEBHOOK_URL_REFUSED',
    alsoCodes: [
      'WEBHOOK_ENDPOINT_INVALID',
      'WEBHOOK_ENDPOINT_NOT_FOUND',
      'WEBHOOK_SIGNATURE_INVALID',
      'WEBHOOK_REPLAY_INVALID',
      'WEBHOOK_QUEUE_FAILED',
    ],
  },
};
