/**
 * How `pds bridge …` answers read on a terminal; the JSON output is the data itself.
 */

import type { AuditReport } from '@pds-bridge/bridge/polling/messaging-assets';
import type { CheckReport } from '../ops/check.ts';
import type { ConfirmationsAnswer } from '../ops/confirmations.ts';
import type { MoveResult, QueueAge } from '../ops/ports.ts';
import type { RecipientFigures, RecipientSeriesAnswer, RecipientsAnswer } from '../ops/recipients.ts';
import type { RedrivePlan } from '../ops/redrive.ts';
import type { ReplayPlan } from '../ops/replay.ts';
import type { BridgeStatus } from '../ops/status.ts';
import { LOCAL_STAGE } from '../ops/target.ts';
import type { EmittedEvent, Explanation, WriteExplanation } from '../ops/why.ts';
import { formatDuration, formatTable, formatTime } from '../output.ts';

/** The answer of `bridge why`. */
export function explanationText(answer: Explanation): string {
  switch (answer.kind) {
    case 'object': {
      const title = `s3://${answer.bucket}/${answer.key}${answer.versionId ? ` (version ${answer.versionId})` : ''}`;
      const matched =
        answer.keyMatched === 'url-decoded'
          ? `\n(the key as decoded from the URL-encoded form given, ${answer.keyGiven}; the bridge records decoded keys)`
          : '';
      if (answer.writes.length === 0) return `${title}: no write seen${matched}\nnext: ${answer.next}`;
      const writes = answer.writes.map((write, index) => writeText(write, index + 1));
      return [`${title}: ${answer.writes.length} write(s) seen, oldest first${matched}`, ...writes].join(
        '\n\n',
      );
    }
    case 'publication':
      return (
        lines(
          `publication ${answer.publicationId}${answer.found ? `: ${answer.status?.toUpperCase()}` : ': not found'}`,
          [
            ['attempts', answer.attempts],
            ['requested by', answer.requestedBy],
            ['created', answer.createdAt && formatTime(answer.createdAt)],
            ['updated', answer.updatedAt && formatTime(answer.updatedAt)],
            ['selection', answer.selectionId],
            ['items', answer.numberOfItems],
            ['primary keys', answer.primaryKeys],
            ['code', answer.code],
            ['reason', answer.reason],
            ['PDS status', answer.pdsStatus],
            ['last error', answer.lastError],
            ['event sent', answer.notifiedAt && formatTime(answer.notifiedAt)],
            ...eventLines(answer.events),
            ['confirmations', confirmationSummary(answer.confirmations)],
            ['next', answer.next],
          ],
        ) + confirmationRows(answer.confirmations)
      );
    case 'messaging-asset':
      return lines(`messaging asset ${answer.messagingAssetId}: ${answer.state.toUpperCase()}`, [
        ['failed runs', answer.attempts],
        ['first failed', answer.firstFailedAt && formatTime(answer.firstFailedAt)],
        ['last error', answer.lastError],
        [
          'checkpoint',
          answer.checkpoint &&
            `${answer.checkpoint.emitted} emitted, highest ${answer.checkpoint.highestId ?? '-'}, written ${formatTime(answer.checkpoint.updatedAt)}`,
        ],
        ['last successful run', answer.lastSuccessfulRun && formatTime(answer.lastSuccessfulRun)],
        ...eventLines(answer.events),
        ['next', answer.next],
      ]);
  }
}

function writeText(write: WriteExplanation, index: number): string {
  const identity = write.versionId
    ? `version ${write.versionId}`
    : `etag ${write.etag ?? '-'}${write.sequencer ? `, sequencer ${write.sequencer}` : ''}`;
  const outcome = `${write.state.replaceAll('-', ' ').toUpperCase()}${write.code && write.state !== 'superseded' ? ` (${write.code})` : ''}`;
  return lines(`write ${index}: ${identity}: ${outcome}`, [
    ['attempts', write.attempts],
    ['owner', write.owner],
    ['claimed', formatTime(write.claimedAt)],
    ['updated', formatTime(write.updatedAt)],
    ['held until', write.leaseUntil && formatTime(write.leaseUntil)],
    ['gathering', write.gatheringKey],
    ...write.entries.map((entry): [string, unknown] => [
      'entry',
      `${entry.path} → ${entry.assetKey}${entry.importAccepted ? ' (import accepted)' : ' (import not yet accepted)'}`,
    ]),
    ['reason', write.reason],
    ['PDS status', write.pdsStatus],
    ['last error', write.lastError],
    ...eventLines(write.events),
    ['next', write.next],
  ]);
}

function eventLines(events: readonly EmittedEvent[]): Array<[string, unknown]> {
  return events.flatMap(
    (event): Array<[string, unknown]> => [
      ['event', `${event.type} ${event.id}`],
      ...(event.deliveries ?? []).map((d): [string, unknown] => [
        '  webhook',
        `${d.endpointId}: ${d.status} after ${d.attempts} attempt(s)${d.lastStatus !== undefined ? `, last answer ${d.lastStatus}` : ''}${d.nextAttemptAt ? `, next ${d.nextAttemptAt}` : ''}`,
      ]),
    ],
  );
}

/** A title and `name: value` lines, indented, leaving out empty values. */
function lines(title: string, fields: ReadonlyArray<readonly [string, unknown]>): string {
  const shown = fields.filter(([, value]) => value !== undefined && value !== '');
  const width = Math.max(0, ...shown.map(([name]) => name.length));
  return [title, ...shown.map(([name, value]) => `  ${`${name}:`.padEnd(width + 1)} ${String(value)}`)].join(
    '\n',
  );
}

/** The answer of `bridge status`. */
export function statusText(status: BridgeStatus): string {
  const age = (ms: number | undefined) =>
    ms === undefined ? '' : ` (${formatDuration(Math.max(0, ms))} ago)`;
  const checkpoint = status.checkpoint
    ? `checkpoint ${status.checkpoint.name}: ${status.checkpoint.emitted} emitted in ${status.checkpoint.ranges} ranges, highest ${status.checkpoint.highestId ?? '-'}, listing paging ${status.checkpoint.paging}, ${status.checkpoint.retry} to retry, written ${formatTime(status.checkpoint.updatedAt)}${age(status.checkpoint.ageMs)}`
    : 'checkpoint: none yet (the messaging-asset poller has not finished a run)';
  const pollers = formatTable(
    ['POLLER', 'NOW', 'LAST RUN', 'LAST SUCCESS'],
    status.pollers.map((poller) => [
      poller.name,
      poller.running ? `running since ${formatTime(poller.runningSince)}` : 'idle',
      poller.lastRun
        ? `${poller.lastRun.ok ? 'ok' : 'FAILED'} ${formatTime(poller.lastRun.endedAt)}${poller.lastRun.error ? `: ${poller.lastRun.error}` : ''}`
        : 'none recorded',
      poller.lastSuccessAt ? `${formatTime(poller.lastSuccessAt)}${age(poller.lastSuccessAgeMs)}` : 'never',
    ]),
  );
  // The local stack has no EventBridge Scheduler and no on-failure destination: their queues are
  // absent by design there, not missing.
  const absent = (role: string) =>
    status.stage === LOCAL_STAGE && sourceless(role) ? 'deployed stacks only' : 'missing';
  // An age the source has no recent figure for is '-'; where no source can tell ages, the column stays empty.
  const oldest = (exists: boolean | undefined, age: QueueAge | undefined) =>
    !exists || !status.queueAges.available ? '' : age ? formatDuration(age.seconds * 1000) : '-';
  const queues = formatTable(
    ['QUEUE', 'VISIBLE', 'IN FLIGHT', 'OLDEST', 'DEAD-LETTER QUEUE', 'DLQ MESSAGES', 'DLQ OLDEST'],
    status.queues.map((queue) => [
      sourceless(queue.role) ? '' : queue.name,
      queue.exists ? queue.visible : sourceless(queue.role) ? '' : 'missing',
      queue.exists ? queue.inFlight : '',
      oldest(queue.exists, queue.age),
      queue.deadLetter?.name,
      queue.deadLetter ? (queue.deadLetter.exists ? queue.deadLetter.visible : absent(queue.role)) : '',
      oldest(queue.deadLetter?.exists, queue.deadLetter?.age),
    ]),
  );
  const ages = status.queueAges.error
    ? `${status.queueAges.source}: could not be read (${status.queueAges.error})`
    : status.queueAges.source;
  const inFlight =
    status.ingests.inFlight.length === 0
      ? 'ingests in flight: none'
      : [
          `ingests in flight: ${status.ingests.inFlight.length}`,
          formatTable(
            ['OBJECT', 'STATUS', 'CLAIM', 'ATTEMPTS', 'UPDATED', 'LAST ERROR'],
            status.ingests.inFlight.map((ingest) => [
              `s3://${ingest.bucket}/${ingest.key}`,
              ingest.status,
              ingest.claim,
              ingest.attempts,
              formatTime(ingest.updatedAt),
              ingest.lastError,
            ]),
          ),
        ].join('\n');
  const { window } = status.ingests;
  const finished = `ingests finished since ${formatTime(window.since)}: ${window.finished}, ${window.failedCount} failed`;
  const failed =
    window.failed.length === 0
      ? finished
      : [
          finished,
          formatTable(
            ['FAILED', 'AT', 'CODE', 'REASON'],
            window.failed.map((ingest) => [
              `s3://${ingest.bucket}/${ingest.key}`,
              formatTime(ingest.updatedAt),
              ingest.code,
              ingest.reason,
            ]),
          ),
          ...(window.failedCount > window.failed.length
            ? [`(${window.failedCount - window.failed.length} more failed: narrow --since)`]
            : []),
        ].join('\n');
  return [
    `stage ${status.stage}, state bucket ${status.stateBucket}, at ${formatTime(status.at)}`,
    checkpoint,
    auditLine(status),
    '',
    pollers,
    '',
    `watch list: ${status.watchList.keys} keys`,
    inFlight,
    failed,
    '',
    queues,
    ages,
    '',
    publishFailuresText(status),
  ].join('\n');
}

/** The event destinations that did not accept events in the window, each with its latest reason. */
function publishFailuresText(status: BridgeStatus): string {
  const { since, destinations } = status.publishFailures;
  const rows = Object.entries(destinations).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (rows.length === 0) return `event destinations: every publish since ${formatTime(since)} was accepted`;
  return [
    `event destinations that did not accept events since ${formatTime(since)}:`,
    formatTable(
      ['DESTINATION', 'FAILED EVENTS', 'FAILED PUBLISHES', 'LAST', 'LAST REASON'],
      rows.map(([destination, failures]) => {
        const last = failures.recent.at(-1);
        return [
          destination,
          failures.failedEvents,
          failures.failedPublishes,
          formatTime(failures.lastAt),
          last ? `${last.code}: ${last.reason}` : '',
        ];
      }),
    ),
  ].join('\n');
}

/** The scheduled audit's last run and the findings of the last one that completed, or that it never ran. */
function auditLine(status: BridgeStatus): string {
  const audit = status.audit;
  if (!audit) return 'audit: never ran (no scheduled audit has recorded a report)';
  const since = (at: string) =>
    ` (${formatDuration(Math.max(0, Date.parse(status.at) - Date.parse(at)))} ago)`;
  const run = `audit: last run ${audit.lastRun.ok ? 'ok' : 'FAILED'} ${formatTime(audit.lastRun.endedAt)}${since(audit.lastRun.endedAt)}${audit.lastRun.error ? `: ${audit.lastRun.error}` : ''}`;
  const report = audit.lastReport;
  if (!report) return `${run}; no audit has completed yet`;
  if (!report.compared) return `${run}; it found no checkpoint to compare with`;
  const gaps = `${report.gaps} gap(s)${report.gaps > 0 ? ` (${report.gapIds.join(', ')}${report.gaps > report.gapIds.length ? ', …' : ''})` : ''}`;
  const emitted = report.applied ? `, ${report.gapsEmitted} emitted` : '';
  const found = `${gaps}${emitted}, ${report.pending} pending, ${report.strays} stray(s) of ${report.listed} listed`;
  return report.at === audit.lastRun.endedAt
    ? `${run}: ${found}`
    : `${run}; the last completed ${formatTime(report.at)} found ${found}`;
}

/** The queues that hold failures without a source queue: the schedule's DLQ and the failed-runs destination. */
function sourceless(role: string): boolean {
  return role === 'poller-schedule' || role === 'poller-failed-runs';
}

/** The answer of `bridge redrive`. */
export function redriveText(
  result: RedrivePlan & { applied: boolean; perSecond: number; moved?: MoveResult },
): string {
  const head = `${result.deadLetter}${result.source ? ` → ${result.source}` : ' (no source queue)'}: ${result.count} message(s)${result.oldest ? `, oldest sent ${formatTime(result.oldest)}` : ''}`;
  const reasons =
    result.reasons.length === 0
      ? []
      : [
          `reasons of ${result.sampled} sampled:`,
          formatTable(
            ['COUNT', 'REASON', 'EXAMPLE'],
            result.reasons.map((group) => [group.count, group.reason, group.example]),
          ),
        ];
  const tail = !result.applied
    ? result.count === 0
      ? 'nothing to redrive'
      : `dry run: nothing moved; add --apply to move them back (at most ${result.perSecond} a second)`
    : result.moved?.method === 'move-task'
      ? `move task started (${result.moved.taskHandle}), at most ${result.perSecond} a second; follow it with aws sqs list-message-move-tasks --source-arn <the DLQ's ARN>`
      : `moved ${result.moved?.method === 'copy' ? result.moved.moved : 0} message(s) back, at most ${result.perSecond} a second`;
  return [head, ...reasons, tail].join('\n');
}

/** The answer of `bridge replay`. */
export function replayText(
  result: ReplayPlan & { applied: boolean; perSecond: number; queueUrl?: string; sent?: number },
): string {
  const table =
    result.events.length === 0
      ? 'no finished ingest or publication in the window'
      : formatTable(
          ['TIME', 'TYPE', 'ID', 'SUBJECT'],
          result.events.map((event) => [formatTime(event.time), event.type, event.id, event.subject]),
        );
  const skipped = result.skipped.map((each) => `skipped ${each.record}: ${each.reason}`);
  const tail = result.applied
    ? `sent ${result.sent ?? 0} event(s) to ${result.queueUrl}, at most ${result.perSecond} a second`
    : result.events.length > 0
      ? `dry run: nothing sent; add --apply to send these ${result.events.length} event(s) (at most ${result.perSecond} a second)`
      : '';
  return [
    `finished between ${formatTime(result.since)} and ${formatTime(result.until)}:`,
    table,
    ...skipped,
    tail,
  ]
    .filter((line) => line !== '')
    .join('\n');
}

/** The answer of `bridge audit`. */
export function auditText(report: AuditReport & { queueUrl?: string }): string {
  if (!report.compared) {
    return 'no messaging-asset checkpoint yet: the poller has not finished a run, so there is nothing to compare';
  }
  const named = (ids: number[], count: number) =>
    count === 0 ? '' : `: ${ids.join(', ')}${count > ids.length ? `, … (${count - ids.length} more)` : ''}`;
  const lines = [
    `listed ${report.listed}, recorded as emitted ${report.recorded} (last whole read started ${report.listedAt ? formatTime(report.listedAt) : 'never'})`,
    `gaps (listed, never emitted) ${report.gaps}${named(report.gapIds, report.gaps)}`,
    `strays (emitted, no longer listed) ${report.strays}${named(report.strayIds, report.strays)}`,
    `pending (newer than the last whole read, or waiting for a retry) ${report.pending}`,
  ];
  if (report.applied) {
    const emission = report.emission;
    lines.push(
      `emitted ${report.gapsEmitted} of ${report.gaps} gap(s) with their original event ids${report.queueUrl ? ` to ${report.queueUrl}` : ''}${emission?.stopped ? ` (stopped: ${emission.stopped})` : ''}${emission && emission.failed > 0 ? `; ${emission.failed} failed and wait in the retry list` : ''}`,
    );
  } else if (report.gaps > 0) {
    lines.push(
      `dry run: nothing sent; add --apply to emit the ${report.gaps} gap(s) with the ids the poller would have used`,
    );
  }
  return lines.join('\n');
}

function confirmationSummary(answer: Pick<ConfirmationsAnswer, 'summary'> | undefined): string | undefined {
  const counts = Object.entries(answer?.summary ?? {});
  return counts.length === 0 ? undefined : counts.map(([state, count]) => `${state} ${count}`).join(', ');
}

/** The rows of `bridge why PUBLICATION_ID`'s confirmations, as a table below the fields. */
function confirmationRows(answer: Pick<ConfirmationsAnswer, 'rows'> | undefined): string {
  if (!answer || answer.rows.length === 0) return '';
  return `\n\n${confirmationTable(answer.rows)}${resendRequestLines(answer.rows)}`;
}

/** The resend requests the entries heard, each with the republication it triggered. */
function resendRequestLines(rows: ConfirmationsAnswer['rows']): string {
  const lines = rows.flatMap((row) =>
    (row.resendRequests ?? []).map((line) => `  ${row.primaryKey} at ${row.channelId}: ${line}`),
  );
  return lines.length === 0 ? '' : `\n\nresend requests:\n${lines.join('\n')}`;
}

function confirmationTable(rows: ConfirmationsAnswer['rows']): string {
  return formatTable(
    ['ITEM', 'CHANNEL', 'RECIPIENT', 'MARKET', 'STATE', 'SINCE', 'REASON', 'CORRECTIVE ACTIONS'],
    rows.map((row) => [
      row.primaryKey,
      row.channelId,
      row.recipientGln ?? '',
      row.targetMarket ?? '',
      row.state,
      formatTime(row.since),
      row.reason ?? '',
      row.correctiveActions.join('; '),
    ]),
  );
}

/** Why a confirmations answer lists nothing, and what to do. */
function noConfirmationsWhy(answer: ConfirmationsAnswer): string {
  if (answer.publicationStatus === 'not-found')
    return 'check the id (POST /publications answered it) and the stage';
  if (!answer.query.publicationId) return 'no entries match';
  if (answer.publicationStatus === 'failed') {
    return `no entries: the publication failed, so nothing was published and no recipient was asked (pds bridge why ${answer.query.publicationId} says why)`;
  }
  return 'no entries yet: they are created when the publication is published, one per item and communication channel (IN_PLATFORM destinations have none)';
}

/** The answer of `bridge confirmations`: a count per state, then one row per item and recipient. */
export function confirmationsText(answer: ConfirmationsAnswer): string {
  const { query } = answer;
  const title = query.publicationId
    ? `publication ${query.publicationId}: ${answer.publicationStatus === 'not-found' ? 'not found' : (answer.publicationStatus ?? '').toUpperCase()}`
    : `confirmations${query.primaryKey ? ` of ${query.primaryKey}` : ''}${query.states ? ` in ${query.states.join(', ')}` : ''}`;
  if (answer.rows.length === 0) {
    return `${title}\n  ${noConfirmationsWhy(answer)}`;
  }
  const summary = confirmationSummary(answer) ?? '';
  const table = confirmationTable(answer.rows);
  const more = answer.truncated ? '\n(more entries exist: raise --limit)' : '';
  return `${title}\n${summary}\n\n${table}${more}`;
}

/** A publication → SYNCHRONISED time at the histogram's grain: minutes, hours or days. */
function latencyText(ms: number | null): string {
  if (ms === null) return '-';
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  if (ms < 2 * 86_400_000) return `${Math.round(ms / 3_600_000)} h`;
  return `${Math.round(ms / 86_400_000)} d`;
}

/** The columns both recipient tables share, from one set of figures. */
function figureCells(figures: RecipientFigures): unknown[] {
  const share = figures.unansweredShare === null ? '-' : `${Math.round(figures.unansweredShare * 100)} %`;
  const states = Object.entries(figures.transitions)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([state, count]) => `${state} ${count}`)
    .join(', ');
  return [
    figures.published,
    figures.answered,
    share,
    figures.synchronised.count,
    latencyText(figures.synchronised.p50Ms),
    latencyText(figures.synchronised.p95Ms),
    states,
  ];
}

const FIGURE_HEADERS = ['PUBLISHED', 'ANSWERED', 'UNANSWERED', 'SYNCHRONISED', 'P50', 'P95', 'TRANSITIONS'];

export function recipientsText(answer: RecipientsAnswer): string {
  const window = `${answer.days[0]} to ${answer.days.at(-1)} (UTC)`;
  if (answer.recipients.length === 0) {
    return `recipients, ${window}\n  none counted yet: the ledger counts each transition of its entries per recipient and day as it records it`;
  }
  const table = formatTable(
    ['CHANNEL', 'RECIPIENT', 'GLNS', ...FIGURE_HEADERS],
    answer.recipients.map((recipient) => [
      recipient.channelId,
      recipient.recipient,
      recipient.recipientGlns.join(' '),
      ...figureCells(recipient.totals),
    ]),
  );
  const more = answer.truncated ? '\n(more recipients exist: raise --limit)' : '';
  return `recipients, ${window}; p50/p95: publication to SYNCHRONISED, at the histogram's bucket\n\n${table}${more}`;
}

export function recipientSeriesText(answer: RecipientSeriesAnswer): string {
  const title = `recipient ${answer.recipient} at channel ${answer.channelId}`;
  if (!answer.record || !answer.totals) {
    return `${title}\n  never counted: \`pds bridge recipients\` lists the recipients the ledger has counted`;
  }
  const table = formatTable(
    ['DAY', ...FIGURE_HEADERS],
    [...answer.days.map((day) => [day.day, ...figureCells(day)]), ['all', ...figureCells(answer.totals)]],
  );
  const glns =
    answer.record.recipientGlns.length > 0 ? ` (GLN ${answer.record.recipientGlns.join(', ')})` : '';
  return `${title}${glns}\n\n${table}`;
}

/** The answer of `bridge check`: a line per check, the fix under each failed one, a verdict. */
export function checkText(report: CheckReport): string {
  const lines = report.lines.flatMap((line) => [
    `${line.ok ? '✓' : '✗'} ${line.check}: ${line.detail}`,
    ...(line.fix ? [`    → ${line.fix}`] : []),
  ]);
  const failedCount = report.lines.filter((line) => !line.ok).length;
  const verdict =
    failedCount === 0
      ? `stage ${report.stage} (${report.region}): all ${report.lines.length} checks passed`
      : `stage ${report.stage} (${report.region}): ${failedCount} of ${report.lines.length} checks failed`;
  return [...lines, verdict].join('\n');
}
