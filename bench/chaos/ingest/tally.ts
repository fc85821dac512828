/**
 * Counting after an ingest chaos run: what the PDS simulator took, what the events queue, the DLQ and
 * the state bucket hold, set against the drops, the kills and the workers' logs. Pure functions: the
 * run (bench/chaos/ingest.ts) collects, this judges.
 *
 * The documented window (docs/operations.md, "Ingest"): an import the PDS accepted that was not yet on
 * record when the process died is started once more by the retry. A repeated import counts as "in the
 * window" when a worker holding the object was killed after the earlier import was taken (less a small
 * allowance for a request already on the wire) and before the progress write recording it landed. One
 * record write is in flight at a time and carries every import accepted before it began, so the write
 * recording an import is at the latest the second one answered after it. Every other repeated import
 * is a defect.
 */
import type { SimulatorReport } from './simulator.ts';
import type { WorkerLogLine } from './worker.ts';

/** A request already sent when its worker was killed still reaches the PDS shortly after the kill. */
const IN_FLIGHT_ALLOWANCE_MS = 250;

export interface DropFacts {
  index: number;
  key: string;
  entryPaths: string[];
  progressKey: string;
}

export interface Kill {
  t: number;
  /** Object keys of the batch the killed worker was working on. */
  keys: string[];
  reason: 'chaos' | 'timeout';
}

export interface ObservedEvent {
  type: string;
  id: string;
  key: string;
}

export interface ProgressRecordFacts {
  objectKey: string;
  status: string;
  lastError?: string;
}

export interface RunFacts {
  drops: DropFacts[];
  notifications: number;
  duplicateNotifications: number;
  invocations: number;
  kills: Kill[];
  simulator: SimulatorReport;
  events: ObservedEvent[];
  /** Object keys named by each message left in the DLQ. */
  deadLetters: string[][];
  records: ProgressRecordFacts[];
  workerLog: WorkerLogLine[];
  /** Messages still in the ingest queue (visible or in flight) when counting began. */
  leftInQueue: number;
  seconds: number;
}

export interface Percentiles {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export interface Target {
  name: string;
  value: number;
  target: string;
  pass: boolean;
}

export interface IngestChaosTally {
  drops: number;
  notifications: number;
  duplicateNotifications: number;
  invocations: number;
  kills: number;
  timeouts: number;
  completed: number;
  failed: number;
  lost: number;
  lostKeys: string[];
  /** Objects whose notification ended in the DLQ and that have no outcome event. */
  inDlq: number;
  /** DLQ messages of objects that were ingested anyway (another copy of the notification did it). */
  dlqOfFinished: number;
  dlqReasons: Record<string, number>;
  stuck: number;
  stuckInDlq: number;
  importsTotal: number;
  entriesImportedTwice: number;
  repeatedImports: number;
  repeatedImportsInWindow: number;
  repeatedImportsOutsideWindow: number;
  uploads: number;
  uploadsRepeated: number;
  uploadsRepeatedWithoutKill: number;
  duplicateEventsSameId: number;
  duplicateEventsDifferentId: number;
  leftInQueue: number;
  pdsFaults: SimulatorReport['faults'];
  /** PDS took the import → the next write of its progress record answered (If-Match PUT), in ms. */
  crashWindowFromPdsMs: Percentiles;
  /** The worker got the import's 202 → the next write of its progress record answered, in ms. */
  crashWindowFromAnswerMs: Percentiles;
  seconds: number;
  targets: Target[];
}

export function percentiles(values: number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (share: number) => sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0;
  return { count: sorted.length, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted.at(-1) ?? 0 };
}

/** Successful progress writes per progress key, in time order. */
function writesByKey(log: WorkerLogLine[]): Map<string, number[]> {
  const byKey = new Map<string, number[]>();
  for (const line of log) {
    if (line.ev !== 'put' || line.status !== 200) continue;
    byKey.set(line.key, [...(byKey.get(line.key) ?? []), line.t]);
  }
  for (const times of byKey.values()) times.sort((a, b) => a - b);
  return byKey;
}

function firstAfter(times: number[] | undefined, t: number): number | undefined {
  return times?.find((time) => time >= t);
}

/** The `n`-th of the ascending `times` at or after `t`. */
function nthAfter(times: number[] | undefined, t: number, n: number): number | undefined {
  return times?.filter((time) => time >= t)[n - 1];
}

/** Which drop each gathering holds, from the `d<index>` token of its entry paths. */
function dropOfGathering(simulator: SimulatorReport, dropOfPath: (path: string) => number | undefined) {
  const byGathering = new Map<string, number>();
  for (const gathering of simulator.gatherings) {
    const index = gathering.paths.map(dropOfPath).find((i) => i !== undefined);
    if (index !== undefined) byGathering.set(gathering.gatheringKey, index);
  }
  return byGathering;
}

interface RepeatedImports {
  entriesImportedTwice: number;
  repeated: number;
  inWindow: number;
}

function classifyRepeatedImports(facts: RunFacts, dropOf: Map<string, number>): RepeatedImports {
  const writes = writesByKey(facts.workerLog);
  const byEntry = new Map<string, Array<{ at: number; drop: DropFacts }>>();
  for (const taken of facts.simulator.imports) {
    const drop = facts.drops[dropOf.get(taken.gatheringKey) ?? -1];
    if (!drop) continue;
    byEntry.set(taken.path, [...(byEntry.get(taken.path) ?? []), { at: taken.at, drop }]);
  }
  const result: RepeatedImports = { entriesImportedTwice: 0, repeated: 0, inWindow: 0 };
  for (const imports of byEntry.values()) {
    if (imports.length < 2) continue;
    imports.sort((a, b) => a.at - b.at);
    result.entriesImportedTwice += 1;
    for (let i = 1; i < imports.length; i++) {
      const earlier = imports[i - 1] as { at: number; drop: DropFacts };
      const later = imports[i] as { at: number; drop: DropFacts };
      const recordedAt =
        nthAfter(writes.get(earlier.drop.progressKey), earlier.at, 2) ?? Number.POSITIVE_INFINITY;
      const killedInWindow = facts.kills.some(
        (kill) =>
          kill.keys.includes(earlier.drop.key) &&
          kill.t >= earlier.at - IN_FLIGHT_ALLOWANCE_MS &&
          kill.t < Math.min(recordedAt, later.at),
      );
      result.repeated += 1;
      if (killedInWindow) result.inWindow += 1;
    }
  }
  return result;
}

/** How long an accepted import stays unrecorded, from the PDS's and from the worker's side. */
function crashWindows(facts: RunFacts, dropOf: Map<string, number>) {
  const writes = writesByKey(facts.workerLog);
  const progressKeyOf = (gatheringKey: string) => facts.drops[dropOf.get(gatheringKey) ?? -1]?.progressKey;
  const measure = (taken: Array<{ gatheringKey: string; at: number }>) =>
    taken.flatMap(({ gatheringKey, at }) => {
      const key = progressKeyOf(gatheringKey);
      const recordedAt = key ? firstAfter(writes.get(key), at) : undefined;
      // Not recorded within a few seconds: a kill or a lost claim ended that delivery (counted above).
      return recordedAt !== undefined && recordedAt - at < 5_000 ? [recordedAt - at] : [];
    });
  const answered = facts.workerLog.flatMap((line) =>
    line.ev === 'import' && line.status === 202 ? [{ gatheringKey: line.gatheringKey, at: line.t }] : [],
  );
  return {
    fromPds: percentiles(measure(facts.simulator.imports)),
    fromAnswer: percentiles(measure(answered)),
  };
}

function duplicateEvents(events: ObservedEvent[]): { sameId: number; differentId: number } {
  const byKey = new Map<string, ObservedEvent[]>();
  for (const event of events) byKey.set(event.key, [...(byKey.get(event.key) ?? []), event]);
  let sameId = 0;
  let differentId = 0;
  for (const list of byKey.values()) {
    const first = list[0];
    for (const event of list.slice(1)) {
      if (event.id === first?.id) sameId += 1;
      else differentId += 1;
    }
  }
  return { sameId, differentId };
}

function countBy<T>(values: T[], keyOf: (value: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[keyOf(value)] = (counts[keyOf(value)] ?? 0) + 1;
  return counts;
}

/** Strips ids and keys from a reason so that equal causes count together. */
function reasonClass(reason: string | undefined): string {
  if (!reason) return '(no error recorded)';
  return reason
    .replace(/ingest\/\S+/g, '<record>')
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '<time>')
    .replace(/[0-9a-f-]{36}\/\S+/g, '<owner>')
    .slice(0, 140);
}

/** A target that is met only when `value` is 0. */
function none(name: string, value: number): Target {
  return { name, value, target: '0', pass: value === 0 };
}

/**
 * Judges a run.
 *
 * @example
 * ```ts
 * const tally = tallyRun(facts, dropIndexOfPath);
 * tally.targets.every((t) => t.pass);
 * ```
 */
export function tallyRun(
  facts: RunFacts,
  dropOfPath: (path: string) => number | undefined,
): IngestChaosTally {
  const dropOf = dropOfGathering(facts.simulator, dropOfPath);
  const withEvent = new Set(facts.events.map((event) => event.key));
  const dlqKeys = facts.deadLetters.flat();
  const inDlq = new Set(dlqKeys.filter((key) => !withEvent.has(key)));
  const dlqOfFinished = dlqKeys.filter((key) => withEvent.has(key)).length;
  const lostKeys = facts.drops.filter((d) => !withEvent.has(d.key) && !inDlq.has(d.key)).map((d) => d.key);
  const unfinished = facts.records.filter((r) => r.status !== 'done' && r.status !== 'failed');
  const dlqRecords = facts.records.filter((r) => inDlq.has(r.objectKey));

  const uploadsPerDrop = countBy([...dropOf.values()], String);
  const repeatedUploadDrops = Object.entries(uploadsPerDrop).filter(([, count]) => count > 1);
  const killedKeys = new Set(facts.kills.flatMap((kill) => kill.keys));
  const uploadsRepeatedWithoutKill = repeatedUploadDrops.filter(
    ([index]) => !killedKeys.has(facts.drops[Number(index)]?.key ?? ''),
  ).length;

  const repeated = classifyRepeatedImports(facts, dropOf);
  const windows = crashWindows(facts, dropOf);
  const events = duplicateEvents(facts.events);
  const completedKeys = new Set(
    facts.events.filter((e) => e.type === 'pds.ingest.completed').map((e) => e.key),
  );
  const failedKeys = new Set(facts.events.filter((e) => e.type === 'pds.ingest.failed').map((e) => e.key));
  const outsideWindow = repeated.repeated - repeated.inWindow;

  const targets: Target[] = [
    none('objects lost', lostKeys.length),
    none('progress records stuck', unfinished.length),
    none('repeated imports outside the crash window', outsideWindow),
    none('duplicate events with different ids', events.differentId),
    none('objects in the DLQ (not ingested)', inDlq.size),
    none('DLQ messages of ingested objects', dlqOfFinished),
    none('uploads repeated without a kill', uploadsRepeatedWithoutKill),
    none('messages left in the queue', facts.leftInQueue),
  ];

  return {
    drops: facts.drops.length,
    notifications: facts.notifications,
    duplicateNotifications: facts.duplicateNotifications,
    invocations: facts.invocations,
    kills: facts.kills.filter((kill) => kill.reason === 'chaos').length,
    timeouts: facts.kills.filter((kill) => kill.reason === 'timeout').length,
    completed: completedKeys.size,
    failed: failedKeys.size,
    lost: lostKeys.length,
    lostKeys,
    inDlq: inDlq.size,
    dlqOfFinished,
    dlqReasons: countBy(dlqRecords, (record) => reasonClass(record.lastError)),
    stuck: unfinished.length,
    stuckInDlq: unfinished.filter((record) => inDlq.has(record.objectKey)).length,
    importsTotal: facts.simulator.imports.length,
    entriesImportedTwice: repeated.entriesImportedTwice,
    repeatedImports: repeated.repeated,
    repeatedImportsInWindow: repeated.inWindow,
    repeatedImportsOutsideWindow: outsideWindow,
    uploads: facts.simulator.gatherings.length,
    uploadsRepeated: repeatedUploadDrops.length,
    uploadsRepeatedWithoutKill,
    duplicateEventsSameId: events.sameId,
    duplicateEventsDifferentId: events.differentId,
    leftInQueue: facts.leftInQueue,
    pdsFaults: facts.simulator.faults,
    crashWindowFromPdsMs: windows.fromPds,
    crashWindowFromAnswerMs: windows.fromAnswer,
    seconds: facts.seconds,
    targets,
  };
}
