/**
 * `pds watch …`: the supplier-review watch list, read and changed directly in the state bucket
 * (`STATE_BUCKET` or `--state-bucket`, with the caller's AWS credentials), the same records the API's
 * `/watch` routes and the publish worker use (packages/bridge/src/state/watch-list.ts).
 */

import { UsageError } from '@pds-bridge/bridge/core';
import { createS3Client } from '@pds-bridge/bridge/lambda/aws-clients.ts';
import { PdsNotFoundError } from '@pds-bridge/bridge/pds';
import { seenReviewCounts, unwatch } from '@pds-bridge/bridge/polling/supplier-reviews/review-progress.ts';
import type { StateStore } from '@pds-bridge/bridge/state';
import { S3StateStore } from '@pds-bridge/bridge/state/s3';
import {
  getWatchEntry,
  isExpired,
  type WatchEntry,
  watch,
  watchEntries,
} from '@pds-bridge/bridge/state/watch-list.ts';
import { integerFlag, stringFlag } from '../args.ts';
import type { Command, CommandContext } from '../command.ts';
import { CliInputError } from '../errors.ts';
import { findLocalStack, LOCAL_STACK_HINT } from '../local-stack.ts';
import { emulatorClientConfig } from '../stack-file.ts';

const DAY_MS = 86_400_000;
const DEFAULT_TTL_DAYS = 30;

const stateOptions = {
  'state-bucket': {
    type: 'string',
    value: 'BUCKET',
    description: 'the state bucket (default $STATE_BUCKET)',
  },
} as const;

async function stateStore({ flags, io, command }: CommandContext): Promise<StateStore> {
  const bucket = stringFlag(flags, 'state-bucket') ?? io.env.STATE_BUCKET;
  if (bucket) return new S3StateStore({ client: createS3Client(), bucket });
  const stack = await findLocalStack(flags, io, command);
  if (!stack) {
    throw new UsageError(
      `the watch list lives in the state bucket: set STATE_BUCKET or pass --state-bucket (the StateBucketName stack output), ${LOCAL_STACK_HINT}`,
      command,
    );
  }
  return new S3StateStore({
    client: createS3Client({ ...emulatorClientConfig(stack.facts.aws), forcePathStyle: true }),
    bucket: stack.facts.buckets.state,
  });
}

/** An entry as the command shows it: the stored fields and how many reviews the poller emitted. */
interface EntryView {
  primaryKey: string;
  addedAt: string;
  expiresAt: string;
  sources: string[];
  seenReviews: number;
}

async function views(store: StateStore, entries: readonly WatchEntry[]): Promise<EntryView[]> {
  const seen = await seenReviewCounts(store, entries);
  return entries.map(({ primaryKey, addedAt, expiresAt, sources }) => ({
    primaryKey,
    addedAt,
    expiresAt,
    sources,
    seenReviews: seen.get(primaryKey) ?? 0,
  }));
}

function describe(entry: EntryView, now: Date): string {
  const state = isExpired(entry, now) ? 'expired' : `until ${entry.expiresAt}`;
  return `${entry.primaryKey}  ${state}  (${entry.sources.join(', ')}; ${entry.seenReviews} reviews seen)`;
}

const list: Command = {
  name: 'watch list',
  summary: 'list the watched primary keys and when they expire',
  args: '',
  minArgs: 0,
  maxArgs: 0,
  options: stateOptions,
  examples: ['pds watch list --state-bucket pds-bridge-state-123456789012-eu-central-1-prod'],
  async run(context) {
    const store = await stateStore(context);
    const stored: WatchEntry[] = [];
    for await (const entry of watchEntries(store)) stored.push(entry);
    const entries = await views(store, stored);
    const now = new Date();
    return {
      data: entries,
      text: () =>
        entries.length === 0 ? '(nothing watched)' : entries.map((e) => describe(e, now)).join('\n'),
    };
  },
};

const add: Command = {
  name: 'watch add',
  summary: 'watch primary keys for supplier reviews (or extend their watch)',
  args: 'PRIMARY_KEY...',
  minArgs: 1,
  maxArgs: Number.POSITIVE_INFINITY,
  options: {
    ...stateOptions,
    days: {
      type: 'string',
      value: 'N',
      description: `how long to watch (default $WATCH_TTL_DAYS or ${DEFAULT_TTL_DAYS})`,
    },
    force: {
      type: 'boolean',
      description: 'watch keys the PDS does not know (yet); without it they are refused',
    },
  },
  examples: ['pds watch add 04012345678901 04012345678918 --days 60', 'pds watch add 04012345678925 --force'],
  async run(context) {
    const { args, flags, io, command } = context;
    const days =
      integerFlag(flags, 'days', command, { min: 1 }) ?? (Number(io.env.WATCH_TTL_DAYS) || DEFAULT_TTL_DAYS);
    const store = await stateStore(context);
    if (flags.force !== true) await refuseUnknownItems(context, store, args);
    const entries = await views(
      store,
      await watch(store, args, { ttlMs: days * DAY_MS, source: 'operator' }),
    );
    const now = new Date();
    return { data: entries, text: () => entries.map((e) => describe(e, now)).join('\n') };
  },
};

/**
 * Refuses keys the PDS does not know (its supplier-review listing answers 404) that are not watched
 * already: the poller would find nothing for them for the whole watch period.
 */
async function refuseUnknownItems(
  context: CommandContext,
  store: StateStore,
  keys: readonly string[],
): Promise<void> {
  const pds = await context.pds();
  const unknown: string[] = [];
  for (const key of keys) {
    if (await getWatchEntry(store, key)) continue;
    try {
      await pds.listSupplierReviews(key);
    } catch (error) {
      if (!(error instanceof PdsNotFoundError)) throw error;
      unknown.push(key);
    }
  }
  if (unknown.length > 0) {
    throw new CliInputError(
      `the PDS does not know ${unknown.map((key) => JSON.stringify(key)).join(', ')}; nothing was watched: check the keys, or pass --force to watch them anyway`,
    );
  }
}

const remove: Command = {
  name: 'watch remove',
  summary: 'stop watching primary keys',
  args: 'PRIMARY_KEY...',
  minArgs: 1,
  maxArgs: Number.POSITIVE_INFINITY,
  options: stateOptions,
  examples: ['pds watch remove 04012345678901'],
  async run(context) {
    const store = await stateStore(context);
    const results: Array<{ primaryKey: string; removed: boolean }> = [];
    for (const primaryKey of context.args)
      results.push({ primaryKey, removed: await unwatch(store, primaryKey) });
    return {
      data: results,
      text: () =>
        results
          .map((r) => `${r.primaryKey}: ${r.removed ? 'no longer watched' : 'was not watched'}`)
          .join('\n'),
    };
  },
};

/** The `pds watch …` commands. */
export const watchCommands: Command[] = [list, add, remove];
