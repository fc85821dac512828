/**
 * The `/api/v1` workflow commands: upload (with import), validate, publish, reviews, messages, channels.
 */

import { UsageError } from '@pds-bridge/bridge/core';
import type { GatheringEntry, Item, ValidationRequest } from '@pds-bridge/bridge/pds';
import { parseMessagingAssetSafely } from '@pds-bridge/bridge/xml';
import { booleanFlag, listFlag, stringFlag } from '../args.ts';
import type { Command } from '../command.ts';
import { CliInputError } from '../errors.ts';
import { formatTable, formatTime } from '../output.ts';
import { shownText } from '../terminal.ts';
import { plural, readJsonFile, tableResult, uploadEach } from './shared.ts';

/** An uploaded gathering entry with the file it came from and whether it was imported. */
interface UploadedEntry extends GatheringEntry {
  file: string;
  imported: boolean;
}

const upload: Command = {
  name: 'upload',
  summary: 'upload files as one gathering each, optionally importing every entry',
  description:
    'Streams each FILE to POST /api/v1/gatherings (an archive yields one entry per member) with a progress\n' +
    'bar on stderr (plain lines when stderr is not a terminal). With --import, starts the import of every\n' +
    'gathered entry.',
  args: 'FILE...',
  minArgs: 1,
  maxArgs: Number.POSITIVE_INFINITY,
  options: {
    import: { type: 'boolean', description: 'import every gathered entry after its upload' },
    'content-type': {
      type: 'string',
      value: 'TYPE',
      description: 'content type of the files (default: by extension, e.g. text/csv)',
    },
  },
  examples: ['pds upload items.csv', 'pds upload items.csv more.zip --import'],
  async run({ args, flags, pds, progress }) {
    const client = await pds();
    const doImport = booleanFlag(flags, 'import');
    const uploads = await uploadEach(
      progress,
      args,
      stringFlag(flags, 'content-type'),
      (source) => client.uploadGathering(source),
      (result) => plural(result.length, 'entry', 'entries'),
    );
    const uploaded: UploadedEntry[] = uploads.flatMap(({ file, result }) =>
      result.map((entry) => ({ ...entry, file, imported: false })),
    );
    if (doImport) {
      for (const entry of uploaded) {
        await client.startImport({ gatheringKey: entry.gatheringKey, path: entry.path });
        entry.imported = true;
      }
    }
    // The PDS answers an import without a body: it accepted it, and says nothing of items created.
    return tableResult(uploaded, ['FILE', 'PATH', 'CONTENT TYPE', 'GATHERING KEY', 'IMPORT'], (e) => [
      e.file,
      e.path,
      e.contentType,
      e.gatheringKey,
      e.imported ? 'accepted' : 'not requested',
    ]);
  },
};

const validate: Command = {
  name: 'validate',
  summary: 'validate an item against the data model',
  description:
    'ITEM.json holds the item, or a whole validation request {"newItem", "oldItem", "attributeNames"}.\n' +
    'The exit code is 0 whatever the results; read them from the output.',
  args: 'ITEM.json',
  minArgs: 1,
  maxArgs: 1,
  options: {
    old: { type: 'string', value: 'OLD.json', description: 'the item as it was (validates a change)' },
    attributes: {
      type: 'string',
      multiple: true,
      value: 'A,B',
      description: 'validate only these attributes (comma-separated)',
    },
  },
  examples: [
    'pds validate item.json',
    'pds validate item.json --old before.json --attributes name,simple_date',
  ],
  async run({ args, flags, pds, command }) {
    const request = validationRequest(await readJsonFile(args[0] as string), args[0] as string, command);
    const old = stringFlag(flags, 'old');
    if (old !== undefined) request.oldItem = itemOf(await readJsonFile(old), old);
    const attributes = listFlag(flags, 'attributes');
    if (attributes !== undefined) request.attributeNames = attributes;
    const response = await (await pds()).validate(request);
    const rows = Object.entries(response.validations).flatMap(([attribute, results]) =>
      results.map((result) => [attribute, result.level, result.name, result.message]),
    );
    return {
      data: response,
      text: () =>
        rows.length === 0
          ? 'No validation results: the item is valid.'
          : formatTable(['ATTRIBUTE', 'LEVEL', 'RULE', 'MESSAGE'], rows),
    };
  },
};

function validationRequest(value: unknown, file: string, command: string): ValidationRequest {
  const record = itemOf(value, file);
  if (!('newItem' in record)) return { newItem: record };
  if (typeof record.newItem !== 'object' || record.newItem === null) {
    throw new UsageError(`${file}: newItem must be an object`, command);
  }
  return record as unknown as ValidationRequest;
}

function itemOf(value: unknown, file: string): Item {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CliInputError(
      `${file} must hold a JSON object (an item), not ${Array.isArray(value) ? 'an array' : typeof value}`,
    );
  }
  return value as Item;
}

const publish: Command = {
  name: 'publish',
  summary: 'select items by primary key and publish them',
  description:
    'Creates a selection of the --keys (POST /api/v1/selections) and publishes it (POST /api/v1/publications)\n' +
    'to every --channel (COMMUNICATION_CHANNEL, ids from `pds channels`) and --organization (IN_PLATFORM).',
  args: '',
  minArgs: 0,
  maxArgs: 0,
  options: {
    keys: {
      type: 'string',
      multiple: true,
      value: 'K1,K2',
      description: 'primary keys (comma-separated)',
    },
    channel: {
      type: 'string',
      multiple: true,
      value: 'ID',
      description: 'communication channel id',
    },
    organization: {
      type: 'string',
      multiple: true,
      value: 'ID',
      description: 'organization id',
    },
  },
  examples: [
    'pds publish --keys 4006381333931,4006381333948 --channel gdsn-de',
    'pds publish --keys A1 --organization 42',
  ],
  async run({ flags, pds, command }) {
    const keys = listFlag(flags, 'keys') ?? [];
    if (keys.length === 0) throw new UsageError('name the items to publish with --keys K1,K2', command);
    const destinations = [
      ...(listFlag(flags, 'channel') ?? []).map((id) => ({
        destinationType: 'COMMUNICATION_CHANNEL' as const,
        destinationId: id,
      })),
      ...(listFlag(flags, 'organization') ?? []).map((id) => ({
        destinationType: 'IN_PLATFORM' as const,
        destinationId: id,
      })),
    ];
    if (destinations.length === 0) {
      throw new UsageError('name a destination with --channel ID or --organization ID', command);
    }
    const client = await pds();
    const selection = await client.createSelection(keys);
    await client.publish({ selectionId: selection.selectionId, destinations });
    const data = { ...selection, destinations };
    return {
      data,
      text: () =>
        `Published selection ${selection.selectionId} (${plural(selection.numberOfItems, 'item')}) to ` +
        destinations.map((d) => `${d.destinationType} ${d.destinationId}`).join(', '),
    };
  },
};

const reviews: Command = {
  name: 'reviews',
  summary: 'list the supplier reviews of an item',
  args: 'PRIMARY_KEY',
  minArgs: 1,
  maxArgs: 1,
  examples: ['pds reviews 4006381333931'],
  async run({ args, pds }) {
    const list = await (await pds()).listSupplierReviews(args[0] as string);
    return tableResult(
      list,
      ['DATE', 'STATUS', 'CHANNEL', 'SUPPLIER', 'REVIEWER', 'MESSAGING ASSET', 'COMMENT'],
      (r) => [
        formatTime(r.date),
        r.reviewStatus,
        r.channelId,
        r.supplier,
        r.reviewer,
        r.messagingAssetId,
        r.comment,
      ],
    );
  },
};

const messagesList: Command = {
  name: 'messages list',
  summary: 'list the received messaging assets',
  args: '',
  minArgs: 0,
  maxArgs: 0,
  examples: ['pds messages list'],
  async run({ pds }) {
    const list = await (await pds()).listMessagingAssets();
    return tableResult(list, ['ID', 'CREATED', 'PRIMARY KEY', 'CREATOR', 'CONTENT TYPE'], (m) => [
      m.id,
      formatTime(m.createdAt),
      m.primaryKey,
      m.messagingCreatorType,
      m.contentType,
    ]);
  },
};

const messagesGet: Command = {
  name: 'messages get',
  summary: 'print a messaging asset (XML), or with --json its parsed form',
  description:
    'Prints the XML message as received. With --json prints it parsed (lib/xml): the document in a stable\n' +
    'JSON shape and, for a GDSN CatalogueItemConfirmation, its summary; XML that cannot be parsed is an error.',
  args: 'ID',
  minArgs: 1,
  maxArgs: 1,
  examples: ['pds messages get 7', 'pds messages get 7 --json'],
  async run({ args, flags, pds, io, command }) {
    const text = args[0] as string;
    if (!/^\d+$/.test(text))
      throw new UsageError(`ID must be a messaging asset number, got '${text}'`, command);
    const id = Number(text);
    const xml = await (await pds()).getMessagingAsset(id);
    if (!booleanFlag(flags, 'json')) {
      const text = xml.endsWith('\n') ? xml : `${xml}\n`;
      // As received when piped (a file's bytes); on a terminal through the output edge's escaping.
      io.stdout.write(io.stdoutIsTTY ? shownText(text) : text);
      return undefined;
    }
    const parsed = parseMessagingAssetSafely(xml);
    if (!parsed.ok) {
      throw new CliInputError(`messaging asset ${id} could not be parsed: ${parsed.error.message}`);
    }
    return { data: { id, ...parsed } };
  },
};

const channels: Command = {
  name: 'channels',
  summary: 'list the communication channels (publication destinations)',
  args: '',
  minArgs: 0,
  maxArgs: 0,
  examples: ['pds channels'],
  async run({ pds }) {
    const list = await (await pds()).listCommunicationChannels();
    return tableResult(list, ['ID', 'NAME', 'TYPE'], (c) => [c.id, c.name, c.type]);
  },
};

/** The workflow commands. */
export const workflowCommands: Command[] = [
  upload,
  validate,
  publish,
  reviews,
  messagesList,
  messagesGet,
  channels,
];
