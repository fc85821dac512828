/**
 * `pds bridge …`: the operators' commands about the bridge itself (not the PDS): `why`, `status`,
 * `redrive`, `replay`, `audit`, `confirmations`. They read the bridge's state bucket and queues (packages/cli/src/ops) of either
 *
 * - the local stack (`npm start`), found through the stack file it writes (`.local/stack.json` here or
 *   in the nearest folder above, or `--stack-file`; packages/cli/src/local-stack.ts): the default when no stage
 *   is named; or
 * - a deployed stage (`--stage NAME` or `PDS_BRIDGE_STAGE`), with the caller's AWS credentials and
 *   region (the usual chain) and the names the templates give: `pds-bridge-<stage>-<queue>`, the state
 *   bucket `pds-bridge-state-<account>-<region>-<stage>` (or `--state-bucket` / `STATE_BUCKET`).
 */

import { repairConfirmationIndex } from '@pds-bridge/bridge/confirmations/entry-index.ts';
import { UnknownConfirmationStateError } from '@pds-bridge/bridge/confirmations/errors.ts';
import { UsageError } from '@pds-bridge/bridge/core';
import type { EventSink } from '@pds-bridge/bridge/events';
import { parseSuffixList } from '@pds-bridge/bridge/ingest/filters.ts';
import { auditMessagingAssets } from '@pds-bridge/bridge/polling/messaging-assets';
import { booleanFlag, integerFlag, listFlag, stringFlag } from '../args.ts';
import type { Command, CommandContext } from '../command.ts';
import { type FoundStack, findLocalStack, LOCAL_STACK_HINT } from '../local-stack.ts';
import { confirmationsOfPublication, findConfirmations } from '../ops/confirmations.ts';
import { connectOperator, type OperatorConnection } from '../ops/connect.ts';
import { OperatorTargetError, WhySubjectError } from '../ops/errors.ts';
import { recipientSeries, recipientsOverview } from '../ops/recipients.ts';
import { applyRedrive, planRedrive } from '../ops/redrive.ts';
import { reindexActivity } from '../ops/reindex.ts';
import { planReplay, REPLAY_KINDS, type ReplayKind, sendReplay } from '../ops/replay.ts';
import { bridgeStatus } from '../ops/status.ts';
import {
  type BridgeTarget,
  FAILED_RUNS_ROLE,
  isStageName,
  QUEUE_ROLES,
  redrivePair,
  SCHEDULE_DLQ_ROLE,
} from '../ops/target.ts';
import { explain, parseWhySubject } from '../ops/why.ts';
import { emulatorClientConfig } from '../stack-file.ts';
import {
  auditText,
  confirmationsText,
  explanationText,
  recipientSeriesText,
  recipientsText,
  redriveText,
  replayText,
  statusText,
} from './bridge-text.ts';

export const targetOptions = {
  stage: {
    type: 'string',
    value: 'STAGE',
    description: 'the deployed stage (default $PDS_BRIDGE_STAGE; without one, the local stack of npm start)',
  },
  'state-bucket': {
    type: 'string',
    value: 'BUCKET',
    description: 'the state bucket of the stage (default $STATE_BUCKET, else derived from the stage)',
  },
} as const;

/** Default and largest rate of redrive and replay, messages a second (SQS's move task allows 500). */
const DEFAULT_RATE = 10;
const MAX_RATE = 500;

const rateOption = {
  rate: { type: 'string', value: 'N', description: `at most N messages a second (default ${DEFAULT_RATE})` },
  apply: { type: 'boolean', description: 'do it (without: a dry run that changes nothing)' },
} as const;

/** Read every record instead of the activity index's markers (packages/bridge/src/state/activity-index.ts). */
const fullScanOption = {
  'full-scan': {
    type: 'boolean',
    description:
      'read every record instead of the activity index (slow: one read per record; for records written before the index that `pds bridge reindex` has not indexed yet)',
  },
} as const;

/** Where the command connects, from its flags and environment. */
async function targetOf({ flags, io, command }: CommandContext): Promise<BridgeTarget> {
  const stage = stringFlag(flags, 'stage') ?? io.env.PDS_BRIDGE_STAGE;
  const stackFile = stringFlag(flags, 'stack-file');
  if (stage !== undefined && stage !== 'local') {
    if (!isStageName(stage)) {
      throw new UsageError(
        `--stage must be a stage name as deployed (lower-case letters, digits, '-'), got '${stage}'`,
        command,
      );
    }
    if (stackFile !== undefined) {
      throw new UsageError('--stack-file names the local stack; leave it out with --stage', command);
    }
    const stateBucket = stringFlag(flags, 'state-bucket') ?? io.env.STATE_BUCKET;
    // A deployed stage's filters are in its function's configuration; the operator may set them here too.
    const filters =
      io.env.INGEST_PREFIX !== undefined || io.env.INGEST_SUFFIXES !== undefined
        ? {
            ingestFilters: {
              prefix: io.env.INGEST_PREFIX ?? '',
              suffixes: parseSuffixList(io.env.INGEST_SUFFIXES),
            },
          }
        : {};
    return { stage, ...(stateBucket ? { stateBucket } : {}), ...filters };
  }
  const deployed =
    'for a deployed stack pass --stage STAGE (or set PDS_BRIDGE_STAGE) with AWS credentials and AWS_REGION';
  let stack: FoundStack | undefined;
  try {
    stack = await findLocalStack(flags, io, command);
  } catch (error) {
    throw new UsageError(`${(error as Error).message.replace(/\.$/, '')}; ${deployed}`, command);
  }
  if (!stack) {
    throw new UsageError(`no local stack is running: ${deployed}, ${LOCAL_STACK_HINT}`, command);
  }
  const { facts, path } = stack;
  return {
    stage: 'local',
    stateBucket: stringFlag(flags, 'state-bucket') ?? facts.buckets.state,
    emulator: emulatorClientConfig(facts.aws),
    stackFile: path,
    ...(facts.ingest ? { ingestFilters: facts.ingest } : {}),
    ...(facts.webhookSecretsDir ? { webhookSecretsDir: facts.webhookSecretsDir } : {}),
  };
}

/** Runs `fn` connected to the target; what the operator named wrongly becomes a usage error (exit 2). */
export async function withConnection<T>(
  context: CommandContext,
  fn: (connection: OperatorConnection, target: BridgeTarget) => Promise<T>,
): Promise<T> {
  let connection: OperatorConnection | undefined;
  try {
    const target = await targetOf(context);
    connection = await connectOperator(target);
    return await fn(connection, target);
  } catch (error) {
    if (error instanceof OperatorTargetError || error instanceof WhySubjectError) {
      throw new UsageError(error.message, context.command);
    }
    throw error;
  } finally {
    connection?.close();
  }
}

function rateOf(context: CommandContext): number {
  return integerFlag(context.flags, 'rate', context.command, { min: 1, max: MAX_RATE }) ?? DEFAULT_RATE;
}

/** `--since` / `--until`: an ISO 8601 time, or a duration before now (`90m`, `12h`, `7d`). */
export function parseTimeFlag(text: string, name: string, command: string, now: number): number {
  const relative = /^(\d+)\s*(s|m|h|d)$/.exec(text.trim());
  if (relative) {
    const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[relative[2] as 's' | 'm' | 'h' | 'd'];
    return now - Number(relative[1]) * unit;
  }
  const at = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(at)) {
    throw new UsageError(
      `--${name} must be an ISO 8601 time (2026-05-04T10:00:00Z) or a duration before now (90m, 12h, 7d), got '${text}'`,
      command,
    );
  }
  return at;
}

const why: Command = {
  name: 'bridge why',
  summary: 'everything the bridge recorded about a dropped file, a publication or a messaging asset',
  description:
    'SUBJECT is s3://BUCKET/KEY (every write of that key the ingest saw: attempts, owner, outcome, failure code and reason, gathering key, the entries whose import the PDS accepted, the ids of the events sent), a publication id (or publication/ID) or a messaging-asset id (or messaging-asset/ID). Each answer ends with what to do next.',
  args: 'SUBJECT',
  minArgs: 1,
  maxArgs: 1,
  options: {
    ...targetOptions,
    version: { type: 'string', value: 'ID', description: 'only this S3 version of the object' },
  },
  examples: [
    "pds bridge why 's3://pds-bridge-local-drop/incoming/items.csv'",
    'pds bridge why s3://pds-bridge-drop-123456789012-eu-central-1-prod/in/items.zip --version 3HL4kqtJlcpXroDTDmJ.rmSpXd3dIbrHY --stage prod',
    'pds bridge why 0f9c6a2e-8d1b-4a53-9a57-6f7c1e2d3b4a --stage prod',
    'pds bridge why messaging-asset/42',
  ],
  async run(context) {
    const version = stringFlag(context.flags, 'version');
    const subject = (() => {
      try {
        return parseWhySubject(context.args[0] as string, version);
      } catch (error) {
        throw new UsageError((error as Error).message, context.command);
      }
    })();
    if (version !== undefined && subject.kind !== 'object') {
      throw new UsageError('--version applies to s3://BUCKET/KEY only', context.command);
    }
    const answer = await withConnection(context, (connection, target) =>
      explain(connection.store, subject, target.ingestFilters ? { filters: target.ingestFilters } : {}),
    );
    return { data: answer, text: () => explanationText(answer) };
  },
};

const status: Command = {
  name: 'bridge status',
  summary:
    'poller checkpoints and last successful runs, watch list, ingests in flight and finished or failed lately, queue and DLQ depths',
  description:
    'Ingests are read by window through the activity index: those in flight, and those that finished since --since (default 24h: a duration before now, or an ISO 8601 time), with the failed ones listed. What it reads follows that window, not every record the bucket ever held.',
  args: '',
  minArgs: 0,
  maxArgs: 0,
  options: {
    ...targetOptions,
    ...fullScanOption,
    since: {
      type: 'string',
      value: 'TIME',
      description: 'ingests finished since TIME: 90m, 24h, 7d before now, or ISO 8601 (default 24h)',
    },
  },
  examples: ['pds bridge status', 'pds bridge status --stage prod --since 7d --json'],
  async run(context) {
    const read = booleanFlag(context.flags, 'full-scan') ? 'full' : 'index';
    const now = Date.now();
    const sinceText = stringFlag(context.flags, 'since');
    const since =
      sinceText === undefined ? undefined : parseTimeFlag(sinceText, 'since', context.command, now);
    if (since !== undefined && since >= now)
      throw new UsageError('--since must be in the past', context.command);
    const result = await withConnection(context, (connection) =>
      bridgeStatus(connection.store, connection.queues, {
        ...connection,
        read,
        now,
        ...(since === undefined ? {} : { windowMs: now - since }),
      }),
    );
    return { data: result, text: () => statusText(result) };
  },
};

const redrive: Command = {
  name: 'bridge redrive',
  summary: 'what is in a dead-letter queue and why; with --apply, move it back to its queue',
  description: `QUEUE is one of ${[...QUEUE_ROLES, SCHEDULE_DLQ_ROLE, FAILED_RUNS_ROLE].join(', ')} (or a queue's full name, or its DLQ's). The dry run counts the DLQ's messages, shows the oldest and groups a sample by reason (what the bridge recorded about each; the sampled messages stay in the DLQ). --apply moves them back to the source queue with SQS's message move task, at most --rate a second; where there is none (the local emulator) they are received, sent and deleted at that rate.`,
  args: 'QUEUE',
  minArgs: 1,
  maxArgs: 1,
  options: {
    ...targetOptions,
    ...rateOption,
    sample: { type: 'string', value: 'N', description: 'messages looked at for the reasons (default 50)' },
  },
  examples: ['pds bridge redrive ingest', 'pds bridge redrive publications --stage prod --apply --rate 5'],
  async run(context) {
    const { command } = context;
    const apply = booleanFlag(context.flags, 'apply');
    const perSecond = rateOf(context);
    const sample = integerFlag(context.flags, 'sample', command, { min: 1, max: 1000 }) ?? 50;
    const result = await withConnection(context, async (connection) => {
      const pair = redrivePair(connection.stage, context.args[0] as string);
      if (!pair) {
        throw new UsageError(
          `'${context.args[0]}' is not a queue of the bridge; use one of ${[...QUEUE_ROLES, SCHEDULE_DLQ_ROLE, FAILED_RUNS_ROLE].join(', ')}`,
          command,
        );
      }
      const plan = await planRedrive(connection.queues, connection.store, pair, { sample });
      if (!apply || plan.count === 0) return { ...plan, applied: false as const, perSecond };
      const moved = await applyRedrive(connection.queues, pair, { perSecond });
      return { ...plan, applied: true as const, perSecond, moved };
    });
    return { data: result, text: () => redriveText(result) };
  },
};

const replay: Command = {
  name: 'bridge replay',
  summary: 'send again the events of ingests and publications finished in a time window (same ids)',
  description:
    "Rebuilds pds.ingest.completed|failed and pds.publication.completed|failed from the records of everything finished between --since and --until, with the ids they were first sent with: consumers that have them drop them, a consumer that lost them gets them. Without --apply it lists them. Events go to the stage's events queue (pds-bridge-<stage>-events) unless --queue-url names another.",
  args: '',
  minArgs: 0,
  maxArgs: 0,
  options: {
    ...targetOptions,
    ...rateOption,
    ...fullScanOption,
    since: {
      type: 'string',
      value: 'TIME',
      description: 'start of the window: ISO 8601 time or a duration before now (12h, 7d)',
    },
    until: { type: 'string', value: 'TIME', description: 'end of the window (default now)' },
    kind: {
      type: 'string',
      value: 'KIND',
      multiple: true,
      description: `only ${REPLAY_KINDS.join(' or ')} events (default both)`,
    },
    'queue-url': {
      type: 'string',
      value: 'URL',
      description: 'send to this queue instead of the events queue',
    },
  },
  examples: [
    'pds bridge replay --since 2h',
    'pds bridge replay --stage prod --since 2026-05-04T08:00:00Z --until 2026-05-04T12:00:00Z --kind ingest --apply --rate 20',
  ],
  async run(context) {
    const { flags, command } = context;
    const now = Date.now();
    const sinceText = stringFlag(flags, 'since');
    if (sinceText === undefined) {
      throw new UsageError(
        'name the window: --since TIME (ISO 8601, or a duration before now such as 12h)',
        command,
      );
    }
    const since = parseTimeFlag(sinceText, 'since', command, now);
    const untilText = stringFlag(flags, 'until');
    const until = untilText === undefined ? now : parseTimeFlag(untilText, 'until', command, now);
    if (until <= since) throw new UsageError('--until must be later than --since', command);
    const kinds = listFlag(flags, 'kind');
    for (const kind of kinds ?? []) {
      if (!(REPLAY_KINDS as readonly string[]).includes(kind)) {
        throw new UsageError(`--kind must be ${REPLAY_KINDS.join(' or ')}, got '${kind}'`, command);
      }
    }
    const apply = booleanFlag(flags, 'apply');
    const perSecond = rateOf(context);
    const result = await withConnection(context, async (connection) => {
      const plan = await planReplay(connection.store, {
        since,
        until,
        ...(kinds ? { kinds: kinds as ReplayKind[] } : {}),
        read: booleanFlag(flags, 'full-scan') ? 'full' : 'index',
      });
      if (!apply) return { ...plan, applied: false as const, perSecond };
      const { sink, queueUrl } = await connection.eventSink(stringFlag(flags, 'queue-url'));
      const sent = await sendReplay(sink, plan.events, { perSecond });
      return { ...plan, applied: true as const, perSecond, queueUrl, sent };
    });
    return { data: result, text: () => replayText(result) };
  },
};

const audit: Command = {
  name: 'bridge audit',
  summary:
    'compare the messaging assets the PDS lists with those the bridge emitted; with --apply, emit the gaps',
  description:
    "Reads the PDS's whole messaging-asset listing (PDS_BASE_URL and the PDS credentials, as the other pds commands) and the poller's record of emitted ids in the state bucket. Gaps are listed assets never emitted (and older than the poller's last whole read); strays are emitted assets the PDS no longer lists. --apply emits the gaps exactly as the poller would have: same event ids, recorded in the checkpoint with a conditional write (a poller run that writes meanwhile makes it stop; run it again). Events go to the stage's events queue unless --queue-url names another (set it to the messaging-asset queue when MESSAGING_ASSET_EVENTS_QUEUE_URL routes them elsewhere, as a deployed stage does).",
  args: '',
  minArgs: 0,
  maxArgs: 0,
  options: {
    ...targetOptions,
    apply: { type: 'boolean', description: 'emit the gaps (without: a report that changes nothing)' },
    'queue-url': {
      type: 'string',
      value: 'URL',
      description: 'send to this queue instead of the events queue',
    },
  },
  examples: [
    'pds bridge audit',
    'pds bridge audit --stage prod --apply --queue-url https://sqs.eu-central-1.amazonaws.com/123456789012/pds-bridge-prod-messaging-asset-events',
  ],
  async run(context) {
    const apply = booleanFlag(context.flags, 'apply');
    const pds = await context.pds();
    const result = await withConnection(context, async (connection) => {
      if (!apply) {
        return auditMessagingAssets({ pds, store: connection.store, sink: refusingSink }, { apply: false });
      }
      const { sink, queueUrl } = await connection.eventSink(stringFlag(context.flags, 'queue-url'));
      const report = await auditMessagingAssets({ pds, store: connection.store, sink }, { apply: true });
      return { ...report, queueUrl };
    });
    return { data: result, text: () => auditText(result) };
  },
};

/** The sink of a dry run: the audit without --apply never sends; reaching it is a bug. */
const refusingSink: EventSink = {
  publish: () => Promise.reject(new Error('a dry-run audit must not send events')),
};

const confirmations: Command = {
  name: 'bridge confirmations',
  summary: 'did each recipient synchronise what was published? (the confirmation ledger)',
  description:
    'PUBLICATION_ID shows every item and recipient of that publication with a count per state; --key KEY every recipient of one item; --state STATES (comma-separated, e.g. REVIEW,REJECTED,OVERDUE) the entries in those states: the exception list. --key and --state combine. Each row: state, since when, and the corrective actions the recipient asked for (docs/confirmations.md).',
  args: '[PUBLICATION_ID]',
  minArgs: 0,
  maxArgs: 1,
  options: {
    ...targetOptions,
    key: { type: 'string', value: 'KEY', description: 'one item, by primary key' },
    state: {
      type: 'string',
      value: 'STATES',
      description: 'only entries in these states, comma-separated (e.g. REVIEW,REJECTED,OVERDUE)',
    },
    limit: {
      type: 'string',
      value: 'N',
      description: 'at most N entries with --key or --state (default 100)',
    },
  },
  examples: [
    'pds bridge confirmations 0f9c6a2e-8d1b-4a53-9a57-6f7c1e2d3b4a',
    'pds bridge confirmations --state REVIEW,REJECTED,OVERDUE --stage prod',
    'pds bridge confirmations --key 00614141123452 --json',
  ],
  async run(context) {
    const { flags, command, args } = context;
    const primaryKey = stringFlag(flags, 'key');
    const stateText = stringFlag(flags, 'state');
    const states = stateText
      ?.split(',')
      .map((state) => state.trim())
      .filter(Boolean);
    const limit = integerFlag(flags, 'limit', command, { min: 1, max: 1000 }) ?? 100;
    const publicationId = args[0];
    if (publicationId !== undefined && (primaryKey !== undefined || states !== undefined)) {
      throw new UsageError('give a PUBLICATION_ID, or --key and/or --state, not both', command);
    }
    if (publicationId === undefined && primaryKey === undefined && states === undefined) {
      throw new UsageError('name what to show: PUBLICATION_ID, --key KEY or --state STATES', command);
    }
    if (
      states !== undefined &&
      (states.length === 0 || states.some((state) => !/^[A-Za-z0-9_-]+$/.test(state)))
    ) {
      throw new UsageError(
        `--state must be comma-separated states such as REVIEW,OVERDUE, got '${stateText}'`,
        command,
      );
    }
    const answer = await withConnection(context, (connection) =>
      publicationId !== undefined
        ? confirmationsOfPublication(connection.store, publicationId)
        : findConfirmations(
            connection.store,
            {
              ...(primaryKey === undefined ? {} : { primaryKey }),
              ...(states === undefined ? {} : { states }),
            },
            limit,
          ),
    ).catch((error: unknown) => {
      // A typo in --state is a usage error (exit 2), not an empty answer.
      if (error instanceof UnknownConfirmationStateError) throw new UsageError(error.message, command);
      throw error;
    });
    return { data: answer, text: () => confirmationsText(answer) };
  },
};

const recipients: Command = {
  name: 'bridge recipients',
  summary: 'how each recipient answers: publications answered, time to SYNCHRONISED, states by day',
  description:
    'Without arguments, the recipients the ledger counted (per communication channel: `_`, its first recipient, or a GLN) with their figures over the last --days UTC days: publications, how many a CIC answered and the share unanswered, publication → SYNCHRONISED p50/p95, transitions by state. CHANNEL RECIPIENT shows one recipient per day. Read from the per-recipient daily aggregates (confirmation-stats/), never the entries: the cost follows recipients × days, not the ledger\'s size (docs/confirmations.md, "Recipients").',
  args: '[CHANNEL RECIPIENT]',
  minArgs: 0,
  maxArgs: 2,
  options: {
    ...targetOptions,
    days: {
      type: 'string',
      value: 'N',
      description: 'the last N UTC days, today included (default 7, at most 90)',
    },
    limit: { type: 'string', value: 'N', description: 'at most N recipients (default 50)' },
  },
  examples: [
    'pds bridge recipients',
    'pds bridge recipients --days 30 --stage prod',
    'pds bridge recipients gdsn-de _ --days 14 --json',
  ],
  async run(context) {
    const { flags, command, args } = context;
    const days = integerFlag(flags, 'days', command, { min: 1, max: 90 }) ?? 7;
    const limit = integerFlag(flags, 'limit', command, { min: 1, max: 1000 }) ?? 50;
    const [channelId, recipient] = args;
    if (channelId !== undefined && recipient === undefined) {
      throw new UsageError('name the recipient after the channel: CHANNEL RECIPIENT (a GLN, or _)', command);
    }
    const now = new Date();
    if (channelId !== undefined && recipient !== undefined) {
      const answer = await withConnection(context, (connection) =>
        recipientSeries(connection.store, channelId, recipient, { days, now }),
      );
      return { data: answer, text: () => recipientSeriesText(answer) };
    }
    const answer = await withConnection(context, (connection) =>
      recipientsOverview(connection.store, { days, limit, now }),
    );
    return { data: answer, text: () => recipientsText(answer) };
  },
};

const reindexConfirmations: Command = {
  name: 'bridge reindex-confirmations',
  summary:
    "index the confirmation ledger's entries by state and GTIN (once, after upgrading a ledger written before the index)",
  description:
    'Lists every ledger entry once, writes the index markers it lacks (confirmation-index/), records the states it holds and deletes markers whose entry disagrees (when older than an hour). Safe while the bridge runs: no downtime, and running it again changes nothing. docs/confirmations.md, "Index and retention".',
  args: '',
  minArgs: 0,
  maxArgs: 0,
  options: targetOptions,
  examples: ['pds bridge reindex-confirmations', 'pds bridge reindex-confirmations --stage prod --json'],
  async run(context) {
    const result = await withConnection(context, (connection) => repairConfirmationIndex(connection.store));
    return {
      data: result,
      text: () =>
        `${result.entries} entries; ${result.markersWritten} markers written, ${result.markersRetired} stale markers deleted, ${result.markersYoung} stale markers younger than an hour left for the next run`,
    };
  },
};

const reindex: Command = {
  name: 'bridge reindex',
  summary:
    'index the ingest and publication records for status and replay (once, after upgrading a bucket written before the activity index)',
  description:
    'Lists every ingest progress record and publication record once and writes the activity-index markers (activity-index/) it lacks: open for an unfinished ingest, by the hour it finished for a done or failed one, by the hour of its outcome for a publication whose event was sent. Safe while the bridge runs; running it again writes nothing new. Until it has run, `status` and `replay` do not see older records unless given --full-scan. docs/operations.md, "The activity index".',
  args: '',
  minArgs: 0,
  maxArgs: 0,
  options: targetOptions,
  examples: ['pds bridge reindex', 'pds bridge reindex --stage prod --json'],
  async run(context) {
    const result = await withConnection(context, (connection) => reindexActivity(connection.store));
    return {
      data: result,
      text: () =>
        `${result.ingests} ingest records, ${result.publications} publication records; ${result.markersWritten} markers written`,
    };
  },
};

/** The `pds bridge …` commands. */
export const bridgeCommands: Command[] = [
  why,
  status,
  redrive,
  replay,
  audit,
  confirmations,
  recipients,
  reindexConfirmations,
  reindex,
];
