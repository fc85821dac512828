/**
 * The ingest's notification entry (`ingestSqsBody`, `ingestS3Event`) over in-memory fakes: a PDS
 * that accepts every upload (answering 503 to the file names in `failingKeys`), an object source that gives one byte, a memory state store and a
 * recording event sink; logs and metrics are kept for assertions.
 *
 * @example
 * ```ts
 * const { deps, sinks, events } = ingestHarness();
 * await ingestSqsBody(body, deps, sinks);
 * ```
 */
import { Readable } from 'node:stream';
import type { CloudEvent } from '../../packages/bridge/src/events/index.ts';
import { createIngestFilter } from '../../packages/bridge/src/ingest/filters.ts';
import type { NotificationDeps } from '../../packages/bridge/src/ingest/notification.ts';
import type { IngestPdsClient, ObjectSource } from '../../packages/bridge/src/ingest/ports.ts';
import { PdsServerError } from '../../packages/bridge/src/pds/errors.ts';
import type { StreamUploadSource } from '../../packages/bridge/src/pds/multipart.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';
import { RecordingSink } from './event-sink.ts';

export function ingestHarness(failingKeys: readonly string[] = []) {
  const imports: string[] = [];
  const metrics: Array<[string, string, number]> = [];
  const logs: Array<[string, string, Record<string, unknown> | undefined]> = [];
  const sink = new RecordingSink();
  const pds: IngestPdsClient = {
    async uploadGathering(source) {
      const { stream, fileName } = source as StreamUploadSource;
      for await (const _ of stream);
      if (failingKeys.includes(fileName)) {
        throw new PdsServerError(503, { method: 'POST', path: '/api/v1/gatherings' }, '');
      }
      return [{ gatheringKey: `g-${fileName}`, assetKey: 'a', path: fileName, contentType: '' }];
    },
    async startImport(request) {
      imports.push(request.path);
    },
  };
  const source: ObjectSource = {
    async open() {
      return { stream: Readable.from([Buffer.from('x')]), size: 1 };
    },
  };
  const record =
    (level: string) =>
    (message: string, extra?: Record<string, unknown>): void => {
      logs.push([level, message, extra]);
    };
  const deps: NotificationDeps = {
    pds,
    source,
    store: new MemoryStateStore(),
    events: sink,
    owner: 'test',
    leaseMs: 60_000,
    accepts: createIngestFilter({ prefix: 'in/', suffixes: ['.csv'] }),
    buckets: new Set(['drops']),
  };
  const sinks = {
    log: { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') },
    metrics: { addMetric: (name: string, unit: string, value: number) => metrics.push([name, unit, value]) },
  };
  const events: CloudEvent[] = sink.events;
  /** The total of one metric over the run. */
  const count = (name: string) =>
    metrics.filter(([n]) => n === name).reduce((sum, [, , value]) => sum + value, 0);
  return { deps, sinks, imports, logs, metrics, events, count };
}
