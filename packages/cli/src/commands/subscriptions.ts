/**
 * `pds subscriptions …`: the `/v1/bulkSubscription` operations. A subscription is addressed by its NAME
 * (the positional argument) or by `--id ID`, never guessed from the text.
 */

import { UsageError } from '@pds-bridge/bridge/core';
import type { SubscriptionRef } from '@pds-bridge/bridge/pds/resources';
import {
  BULK_SUBSCRIPTION_ID_PATTERN,
  BULK_UPLOAD_ACTIONS,
  type BulkSubscription,
  type BulkSubscriptionEntry,
  type BulkSubscriptionImport,
  type BulkSubscriptionUpdateRequest,
  type BulkUploadAction,
} from '@pds-bridge/bridge/pds/resources';
import {
  booleanFlag,
  type CliOptions,
  type FlagValues,
  integerFlag,
  listFlag,
  stringFlag,
  trueFalseFlag,
} from '../args.ts';
import type { Command, CommandResult } from '../command.ts';
import { CliInputError } from '../errors.ts';
import { formatRecord, formatTable, formatTime } from '../output.ts';
import { readJsonFile } from './shared.ts';

const REF_OPTIONS: CliOptions = {
  id: { type: 'string', value: 'ID', description: 'address the subscription by id instead of NAME' },
};
const ASYNC_OPTION: CliOptions = {
  async: { type: 'boolean', description: 'let the PDS apply it later (synchronously=false)' },
};
const PAGE_OPTIONS: CliOptions = {
  'page-size': { type: 'string', value: 'N', description: 'records per request (default 100)' },
  max: { type: 'string', value: 'N', description: 'stop after N records (default: all)' },
};

/** The subscription the arguments address: NAME (positional) or `--id ID`. */
function refOf(args: readonly string[], flags: FlagValues, command: string): SubscriptionRef {
  const id = stringFlag(flags, 'id');
  const name = args[0];
  if (id !== undefined && name !== undefined) {
    throw new UsageError('pass either NAME or --id ID, not both', command);
  }
  if (id !== undefined) {
    if (!BULK_SUBSCRIPTION_ID_PATTERN.test(id)) {
      throw new UsageError(`--id must be decimal digits, got '${id}'; pass a name as NAME`, command);
    }
    return { id };
  }
  if (name === undefined) throw new UsageError('name the subscription: NAME or --id ID', command);
  if (BULK_SUBSCRIPTION_ID_PATTERN.test(name)) {
    throw new UsageError(
      `'${name}' is digits only, which the PDS reads as an id; pass --id ${name} to address it by id`,
      command,
    );
  }
  return { name };
}

/**
 * The subscription and the remaining arguments of a command that takes files after it: with `--id` every
 * argument is a file, otherwise the first one is the NAME.
 */
function refAndRest(
  args: readonly string[],
  flags: FlagValues,
  command: string,
): { ref: SubscriptionRef; rest: readonly string[] } {
  const byId = stringFlag(flags, 'id') !== undefined;
  const ref = refOf(byId ? [] : args.slice(0, 1), flags, command);
  return { ref, rest: byId ? args : args.slice(1) };
}

function synchronously(flags: FlagValues): { synchronously?: boolean } {
  return booleanFlag(flags, 'async') ? { synchronously: false } : {};
}

function pageOptions(flags: FlagValues, command: string) {
  return {
    pageSize: integerFlag(flags, 'page-size', command, { min: 1 }),
    max: integerFlag(flags, 'max', command, { min: 1 }),
  };
}

function subscriptionsTable(list: readonly BulkSubscription[]): string {
  return formatTable(
    ['ID', 'NAME', 'LABEL', 'ACTIVE', 'STATE', 'ENTRIES', 'ATTRIBUTES', 'LAST UPDATED'],
    list.map((s) => [
      s.id,
      s.name,
      s.label,
      s.active ? 'yes' : 'no',
      s.state,
      s.entryCount,
      s.attributes.join(','),
      formatTime(s.lastUpdated),
    ]),
  );
}

function importsTable(list: readonly BulkSubscriptionImport[]): string {
  return formatTable(
    ['ID', 'ACTION', 'SOURCE', 'STATUS', 'REQUESTED', 'ADDED', 'REMOVED', 'REQUESTED AT'],
    list.map((i) => [
      i.id,
      i.action,
      i.source,
      i.status,
      i.entriesRequested,
      i.entriesAdded,
      i.entriesRemoved,
      formatTime(i.requestedAt),
    ]),
  );
}

function subscriptionResult(subscription: BulkSubscription): CommandResult {
  return { data: subscription, text: () => formatRecord(subscription) };
}

function importResult(record: BulkSubscriptionImport): CommandResult {
  return { data: record, text: () => importsTable([record]) };
}

function entriesTable(entries: readonly BulkSubscriptionEntry[]): string {
  const columns = [...new Set(entries.flatMap((entry) => Object.keys(entry)))];
  return formatTable(
    columns.length > 0 ? columns : ['(no entries)'],
    entries.map((entry) => columns.map((column) => entry[column])),
  );
}

/**
 * Entries from a JSON file (an array) or from `--entry attr=value,attr=value` flags.
 *
 * @example
 * ```ts
 * entriesOf(undefined, { entry: ['gtin=4006381333931', 'market=DE,gtin=1'] }, 'subscriptions add-entries');
 * // [{ gtin: '4006381333931' }, { market: 'DE', gtin: '1' }]
 * ```
 */
async function entriesOf(
  file: string | undefined,
  flags: FlagValues,
  command: string,
): Promise<BulkSubscriptionEntry[]> {
  const pairs =
    flags.entry === undefined ? [] : (Array.isArray(flags.entry) ? flags.entry : [flags.entry]).map(String);
  if ((file === undefined) === (pairs.length === 0)) {
    throw new UsageError('give the entries as ENTRIES.json or as --entry attr=value[,attr=value]', command);
  }
  if (file !== undefined) {
    const value = await readJsonFile(file);
    if (!Array.isArray(value)) {
      throw new CliInputError(
        `${file} must hold a JSON array of entries such as [{"gtin": "4006381333931"}]`,
      );
    }
    return value as BulkSubscriptionEntry[];
  }
  return pairs.map((text) => {
    const entry: BulkSubscriptionEntry = {};
    for (const pair of text.split(',')) {
      const at = pair.indexOf('=');
      if (at <= 0) throw new UsageError(`--entry '${text}' needs attr=value pairs`, command);
      entry[pair.slice(0, at).trim()] = pair.slice(at + 1);
    }
    return entry;
  });
}

const list: Command = {
  name: 'subscriptions list',
  summary: 'list bulk subscriptions, most recently updated first',
  args: '',
  minArgs: 0,
  maxArgs: 0,
  options: {
    keywords: { type: 'string', value: 'WORDS', description: 'words in the name, label or description' },
    active: {
      type: 'string',
      value: 'true|false',
      description: 'only active (true) or inactive (false) ones',
    },
    ...PAGE_OPTIONS,
  },
  examples: ['pds subscriptions list', 'pds subscriptions list --active true --keywords gtin'],
  async run({ flags, pds, command }) {
    const { pageSize, max } = pageOptions(flags, command);
    const active = trueFalseFlag(flags, 'active', command);
    const subscriptions = await (await pds()).bulkSubscriptions
      .list({ keywords: stringFlag(flags, 'keywords'), active, pageSize })
      .toArray(max);
    return { data: subscriptions, text: () => subscriptionsTable(subscriptions) };
  },
};

const get: Command = {
  name: 'subscriptions get',
  summary: 'show one bulk subscription',
  args: 'NAME',
  minArgs: 0,
  maxArgs: 1,
  options: REF_OPTIONS,
  examples: ['pds subscriptions get gtin-watch', 'pds subscriptions get --id 7'],
  async run({ args, flags, pds, command }) {
    const ref = refOf(args, flags, command);
    return subscriptionResult(await (await pds()).bulkSubscriptions.get(ref));
  },
};

const create: Command = {
  name: 'subscriptions create',
  summary: 'create a bulk subscription',
  args: 'NAME',
  minArgs: 1,
  maxArgs: 1,
  options: {
    attributes: {
      type: 'string',
      multiple: true,
      value: 'A,B',
      description: 'attribute names the entries are made of (required; comma-separated)',
    },
    label: { type: 'string', value: 'TEXT', description: 'display label' },
    description: { type: 'string', value: 'TEXT', description: 'description' },
    inactive: { type: 'boolean', description: 'create it inactive' },
    ...ASYNC_OPTION,
  },
  examples: ['pds subscriptions create gtin-watch --attributes gtin --label "GTIN watch list"'],
  async run({ args, flags, pds, command }) {
    const attributes = listFlag(flags, 'attributes') ?? [];
    if (attributes.length === 0) throw new UsageError('name the attributes with --attributes A,B', command);
    const name = args[0] as string;
    refOf([name], {}, command);
    const subscription = await (await pds()).bulkSubscriptions.create(
      {
        name,
        attributes,
        label: stringFlag(flags, 'label'),
        description: stringFlag(flags, 'description'),
        ...(booleanFlag(flags, 'inactive') && { active: false }),
      },
      synchronously(flags),
    );
    return subscriptionResult(subscription);
  },
};

const update: Command = {
  name: 'subscriptions update',
  summary: 'change a bulk subscription (fields left out keep their value)',
  args: 'NAME',
  minArgs: 0,
  maxArgs: 1,
  options: {
    ...REF_OPTIONS,
    label: { type: 'string', value: 'TEXT', description: 'new label' },
    description: { type: 'string', value: 'TEXT', description: 'new description' },
    attributes: { type: 'string', multiple: true, value: 'A,B', description: 'new attribute names' },
    active: { type: 'string', value: 'true|false', description: 'activate or deactivate' },
    ...ASYNC_OPTION,
  },
  examples: [
    'pds subscriptions update gtin-watch --label "Watched GTINs"',
    'pds subscriptions update --id 7 --active false',
  ],
  async run({ args, flags, pds, command }) {
    const ref = refOf(args, flags, command);
    const changes: BulkSubscriptionUpdateRequest = {};
    const label = stringFlag(flags, 'label');
    const description = stringFlag(flags, 'description');
    const attributes = listFlag(flags, 'attributes');
    const active = trueFalseFlag(flags, 'active', command);
    if (label !== undefined) changes.label = label;
    if (description !== undefined) changes.description = description;
    if (attributes !== undefined) changes.attributes = attributes;
    if (active !== undefined) changes.active = active;
    if (Object.keys(changes).length === 0) {
      throw new UsageError('name a change: --label, --description, --attributes or --active', command);
    }
    return subscriptionResult(
      await (await pds()).bulkSubscriptions.update(ref, changes, synchronously(flags)),
    );
  },
};

const remove: Command = {
  name: 'subscriptions delete',
  summary: 'delete a bulk subscription',
  args: 'NAME',
  minArgs: 0,
  maxArgs: 1,
  options: {
    ...REF_OPTIONS,
    force: { type: 'boolean', description: 'delete it even while it is PROCESSING' },
    ...ASYNC_OPTION,
  },
  examples: ['pds subscriptions delete gtin-watch', 'pds subscriptions delete --id 7 --force'],
  async run({ args, flags, pds, command }) {
    const ref = refOf(args, flags, command);
    const result = await (await pds()).bulkSubscriptions.delete(ref, {
      ...synchronously(flags),
      ...(booleanFlag(flags, 'force') && { force: true }),
    });
    const data = { ...ref, deleted: !result.pending, pending: result.pending };
    return { data, text: () => (result.pending ? 'Accepted: the PDS deletes it shortly' : 'Deleted') };
  },
};

const id: Command = {
  name: 'subscriptions id',
  summary: 'print the id of the subscription with a name',
  args: 'NAME',
  minArgs: 1,
  maxArgs: 1,
  examples: ['pds subscriptions id gtin-watch'],
  async run({ args, pds, command }) {
    const { name } = refOf(args, {}, command) as { name: string };
    const found = await (await pds()).bulkSubscriptions.nameToId(name);
    return { data: { name, id: found }, text: () => found };
  },
};

const name: Command = {
  name: 'subscriptions name',
  summary: 'print the name of the subscription with an id',
  args: 'ID',
  minArgs: 1,
  maxArgs: 1,
  examples: ['pds subscriptions name 7'],
  async run({ args, pds, command }) {
    const { id: ref } = refOf([], { id: args[0] }, command) as { id: string };
    const found = await (await pds()).bulkSubscriptions.idToName(ref);
    return { data: { id: ref, name: found }, text: () => found };
  },
};

const entries: Command = {
  name: 'subscriptions entries',
  summary: 'list the entries of a subscription',
  args: 'NAME',
  minArgs: 0,
  maxArgs: 1,
  options: {
    ...REF_OPTIONS,
    keywords: { type: 'string', value: 'WORDS', description: 'words in the entry values' },
    ...PAGE_OPTIONS,
  },
  examples: ['pds subscriptions entries gtin-watch', 'pds subscriptions entries --id 7 --keywords 4006'],
  async run({ args, flags, pds, command }) {
    const { pageSize, max } = pageOptions(flags, command);
    const ref = refOf(args, flags, command);
    const found = await (await pds()).bulkSubscriptions
      .entries(ref, { keywords: stringFlag(flags, 'keywords'), pageSize })
      .toArray(max);
    return { data: found, text: () => entriesTable(found) };
  },
};

function changeEntriesCommand(kind: 'add-entries' | 'remove-entries'): Command {
  const adding = kind === 'add-entries';
  return {
    name: `subscriptions ${kind}`,
    summary: adding ? 'add entries to a subscription' : 'remove entries from a subscription',
    description:
      'The entries come from ENTRIES.json (a JSON array of objects) or from --entry flags, sent as JSON.\n' +
      'Use `pds subscriptions upload` to send a file as the PDS upload instead.',
    args: 'NAME [ENTRIES.json]',
    minArgs: 0,
    maxArgs: 2,
    options: {
      ...REF_OPTIONS,
      entry: {
        type: 'string',
        multiple: true,
        value: 'A=V[,A=V]',
        description: 'one entry as attr=value pairs',
      },
      ...ASYNC_OPTION,
    },
    examples: [
      `pds subscriptions ${kind} gtin-watch --entry gtin=4006381333931`,
      `pds subscriptions ${kind} --id 7 entries.json`,
    ],
    async run({ args, flags, pds, command }) {
      const { ref, rest } = refAndRest(args, flags, command);
      if (rest.length > 1) throw new UsageError('give at most one ENTRIES.json', command);
      const list = await entriesOf(rest[0], flags, command);
      const subscriptions = (await pds()).bulkSubscriptions;
      const record = adding
        ? await subscriptions.addEntries(ref, list, synchronously(flags))
        : await subscriptions.removeEntries(ref, list, synchronously(flags));
      return importResult(record);
    },
  };
}

const clearEntries: Command = {
  name: 'subscriptions clear-entries',
  summary: 'remove every entry of a subscription',
  args: 'NAME',
  minArgs: 0,
  maxArgs: 1,
  options: { ...REF_OPTIONS, ...ASYNC_OPTION },
  examples: ['pds subscriptions clear-entries gtin-watch'],
  async run({ args, flags, pds, command }) {
    const ref = refOf(args, flags, command);
    return importResult(await (await pds()).bulkSubscriptions.removeAllEntries(ref, synchronously(flags)));
  },
};

const imports: Command = {
  name: 'subscriptions imports',
  summary: 'list the changes of a subscription’s entries, newest first',
  args: 'NAME',
  minArgs: 0,
  maxArgs: 1,
  options: { ...REF_OPTIONS, ...PAGE_OPTIONS },
  examples: ['pds subscriptions imports gtin-watch --max 10'],
  async run({ args, flags, pds, command }) {
    const { pageSize, max } = pageOptions(flags, command);
    const ref = refOf(args, flags, command);
    const found = await (await pds()).bulkSubscriptions.imports(ref, { pageSize }).toArray(max);
    return { data: found, text: () => importsTable(found) };
  },
};

const upload: Command = {
  name: 'subscriptions upload',
  summary: 'upload a JSON entries file to add or remove its entries',
  args: 'NAME FILE.json',
  minArgs: 1,
  maxArgs: 2,
  options: {
    ...REF_OPTIONS,
    action: {
      type: 'string',
      value: 'ACTION',
      description: `${BULK_UPLOAD_ACTIONS.join(' or ')} (default ADD_ENTRIES)`,
    },
    ...ASYNC_OPTION,
  },
  examples: [
    'pds subscriptions upload gtin-watch entries.json',
    'pds subscriptions upload --id 7 old.json --action DELETE_ENTRIES',
  ],
  async run({ args, flags, pds, command }) {
    const { ref, rest: files } = refAndRest(args, flags, command);
    if (files.length !== 1) throw new UsageError('give exactly one FILE.json to upload', command);
    const action = (stringFlag(flags, 'action') ?? 'ADD_ENTRIES').toUpperCase();
    if (!(BULK_UPLOAD_ACTIONS as readonly string[]).includes(action)) {
      throw new UsageError(`--action must be ${BULK_UPLOAD_ACTIONS.join(' or ')}, got '${action}'`, command);
    }
    const record = await (await pds()).bulkSubscriptions.uploadEntries(
      ref,
      { filePath: files[0] as string, contentType: 'application/json' },
      action as BulkUploadAction,
      synchronously(flags),
    );
    return importResult(record);
  },
};

/** The `pds subscriptions …` commands. */
export const subscriptionCommands: Command[] = [
  list,
  get,
  create,
  update,
  remove,
  id,
  name,
  entries,
  changeEntriesCommand('add-entries'),
  changeEntriesCommand('remove-entries'),
  clearEntries,
  imports,
  upload,
];
