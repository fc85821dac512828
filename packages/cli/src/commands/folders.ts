/**
 * `pds folders …`: the `/v1/assetFolders` operations.
 */
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { UsageError } from '@pds-bridge/bridge/core';
import type { AssetFolderLink, AssetFolderOperations } from '@pds-bridge/bridge/pds/resources';
import { booleanFlag, type FlagValues, stringFlag } from '../args.ts';
import type { Command, CommandResult } from '../command.ts';
import { formatBytes, formatRecord, formatTable, formatTime } from '../output.ts';
import { conditionalGetFlags, conditionalGetOptions, plural, uploadEach } from './shared.ts';

const KIND_OPTIONS = {
  asset: { type: 'boolean', description: 'PATH is an asset (default: asked from the PDS)' },
  folder: { type: 'boolean', description: 'PATH is a folder (default: asked from the PDS)' },
} as const;

function linksTable(links: readonly AssetFolderLink[]): string {
  return formatTable(
    ['TYPE', 'NAME', 'SIZE', 'CHANGED', 'PATH'],
    links.map((link) => [
      link.linkType,
      link.name,
      typeof link.size === 'number' ? formatBytes(link.size) : '',
      formatTime(link.changedAt),
      link.path,
    ]),
  );
}

function linkResult(link: AssetFolderLink): CommandResult {
  return { data: link, text: () => formatRecord(link) };
}

/** What --asset / --folder say PATH is; undefined when neither is given (ask the PDS). */
function kindFlag(flags: FlagValues, command: string): 'ASSET' | 'FOLDER' | undefined {
  const asset = booleanFlag(flags, 'asset');
  const folder = booleanFlag(flags, 'folder');
  if (asset && folder) throw new UsageError('pass either --asset or --folder, not both', command);
  return asset ? 'ASSET' : folder ? 'FOLDER' : undefined;
}

/** Whether PATH is an asset: from the flags, else from its details. */
async function isAsset(
  folders: AssetFolderOperations,
  kind: 'ASSET' | 'FOLDER' | undefined,
  path: string,
): Promise<boolean> {
  return (kind ?? (await folders.details(path)).linkType) === 'ASSET';
}

const ls: Command = {
  name: 'folders ls',
  summary: 'list a folder, or download it (a ZIP) or an asset',
  description:
    'Lists the content of PATH (default /). With --if-none-match the PDS answers "not modified" when the\n' +
    'listing still has that ETag. With --download writes the asset, or the folder as a ZIP, to --output FILE\n' +
    '(or to stdout when it is not a terminal).',
  args: '[PATH]',
  minArgs: 0,
  maxArgs: 1,
  options: {
    ...conditionalGetOptions('a listing'),
    download: { type: 'boolean', description: 'download the asset or the folder (ZIP) instead of listing' },
    output: { type: 'string', short: 'o', value: 'FILE', description: 'where --download writes' },
  },
  examples: ['pds folders ls /images', 'pds folders ls /documents --download -o documents.zip'],
  async run({ args, flags, pds, io, command }) {
    const path = args[0] ?? '/';
    const { ifNoneMatch, allowCaching } = conditionalGetFlags(flags);
    const output = stringFlag(flags, 'output');
    if (booleanFlag(flags, 'download')) {
      if (output === undefined && io.stdoutIsTTY) {
        throw new UsageError('refusing to write a download to the terminal; pass --output FILE', command);
      }
      const folders = (await pds()).assetFolders;
      const download = await folders.download(path, { allowCaching });
      if (output === undefined) {
        await pipeline(download.stream, io.stdout, { end: false });
        return undefined;
      }
      let bytes = 0;
      download.stream.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      await pipeline(download.stream, createWriteStream(output));
      const data = { path, output, bytes, contentType: download.contentType, fileName: download.fileName };
      return { data, text: () => `Wrote ${formatBytes(bytes)} to ${output}` };
    }
    if (output !== undefined) throw new UsageError('--output goes with --download', command);
    const listing = await (await pds()).assetFolders.list(path, { ifNoneMatch, allowCaching });
    if (listing.notModified) {
      return { data: listing, text: () => `Not modified: ${path} still has ETag ${listing.etag}` };
    }
    const { value: links, ...rest } = listing;
    return {
      data: { ...rest, links },
      text: () => `${linksTable(links)}\n\nETag: ${listing.etag ?? '(none)'}`,
    };
  },
};

/** A command on one PATH that shows the asset or folder the PDS answers with (details, publicize). */
function linkCommand(
  about: Pick<Command, 'name' | 'summary' | 'examples'>,
  call: (folders: AssetFolderOperations, path: string) => Promise<AssetFolderLink>,
): Command {
  return {
    ...about,
    args: 'PATH',
    minArgs: 1,
    maxArgs: 1,
    async run({ args, pds }) {
      return linkResult(await call((await pds()).assetFolders, args[0] as string));
    },
  };
}

const details = linkCommand(
  {
    name: 'folders details',
    summary: 'show one asset or folder',
    examples: ['pds folders details /images/logo.png'],
  },
  (folders, path) => folders.details(path),
);

const mkdir: Command = {
  name: 'folders mkdir',
  summary: 'create a folder',
  description: 'Creates the folder PATH, or with --name the folder NAME inside PATH.',
  args: 'PATH',
  minArgs: 1,
  maxArgs: 1,
  options: { name: { type: 'string', value: 'NAME', description: 'create NAME inside PATH' } },
  examples: ['pds folders mkdir /images/2026', 'pds folders mkdir /images --name 2026'],
  async run({ args, flags, pds }) {
    const name = stringFlag(flags, 'name');
    return linkResult(
      await (await pds()).assetFolders.create(args[0] as string, name === undefined ? {} : { name }),
    );
  },
};

const rm: Command = {
  name: 'folders rm',
  summary: 'delete assets and folders (folders with their content)',
  description: 'One PATH is deleted with _delete; several at once with _deleteItems, all or nothing.',
  args: 'PATH...',
  minArgs: 1,
  maxArgs: Number.POSITIVE_INFINITY,
  examples: ['pds folders rm /images/old.png', 'pds folders rm /drafts /images/tmp.png'],
  async run({ args, pds }) {
    const folders = (await pds()).assetFolders;
    if (args.length === 1) await folders.delete(args[0] as string);
    else await folders.deleteItems(args);
    return { data: { deleted: args }, text: () => `Deleted ${args.join(', ')}` };
  },
};

type LinkChange = (folders: AssetFolderOperations, path: string, target: string) => Promise<AssetFolderLink>;

/**
 * A command the PDS serves once for assets and once for folders (move, rename): `--asset` / `--folder`
 * choose, else the PDS is asked what PATH is.
 */
function assetOrFolderCommand(
  about: Pick<Command, 'name' | 'summary' | 'args' | 'examples'>,
  onAsset: LinkChange,
  onFolder: LinkChange,
): Command {
  return {
    ...about,
    minArgs: 2,
    maxArgs: 2,
    options: KIND_OPTIONS,
    async run({ args, flags, pds, command }) {
      const [path, target] = args as [string, string];
      const kind = kindFlag(flags, command);
      const folders = (await pds()).assetFolders;
      const change = (await isAsset(folders, kind, path)) ? onAsset : onFolder;
      return linkResult(await change(folders, path, target));
    },
  };
}

const mv = assetOrFolderCommand(
  {
    name: 'folders mv',
    summary: 'move an asset or folder into another folder',
    args: 'PATH DESTINATION',
    examples: ['pds folders mv /inbox/logo.png /images', 'pds folders mv /drafts /archive --folder'],
  },
  (folders, path, destination) => folders.moveAsset(path, destination),
  (folders, path, destination) => folders.moveFolder(path, destination),
);

const rename = assetOrFolderCommand(
  {
    name: 'folders rename',
    summary: 'rename an asset or folder',
    args: 'PATH NEW_NAME',
    examples: ['pds folders rename /images/logo.png logo-2026.png'],
  },
  (folders, path, name) => folders.renameAsset(path, name),
  (folders, path, name) => folders.renameFolder(path, name),
);

const publicize = linkCommand(
  {
    name: 'folders publicize',
    summary: 'make an asset public (prints its public URL)',
    examples: ['pds folders publicize /images/logo.png'],
  },
  (folders, path) => folders.convertToPublicAsset(path),
);

function uploadCommand(name: 'folders upload' | 'folders upload-archive'): Command {
  const archive = name === 'folders upload-archive';
  return {
    name,
    summary: archive ? 'expand ZIP archives into a folder' : 'upload files into a folder',
    description: archive
      ? 'Streams each ZIP to _uploadArchive; its folders are created inside FOLDER. Progress on stderr.'
      : 'Streams each FILE to _uploadFile; an asset of the same name is replaced. Progress on stderr.',
    args: archive ? 'FOLDER ZIP...' : 'FOLDER FILE...',
    minArgs: 2,
    maxArgs: Number.POSITIVE_INFINITY,
    options: {
      'content-type': {
        type: 'string',
        value: 'TYPE',
        description: 'content type of the files (default: by extension)',
      },
    },
    examples: archive
      ? ['pds folders upload-archive /images photos.zip']
      : ['pds folders upload /images logo.png banner.svg'],
    async run({ args, flags, pds, progress }) {
      const [folder, ...files] = args as [string, ...string[]];
      const folders = (await pds()).assetFolders;
      const uploads = await uploadEach(
        progress,
        files,
        stringFlag(flags, 'content-type'),
        (source) => (archive ? folders.uploadArchive(folder, source) : folders.uploadFile(folder, source)),
        (result) => `stored ${plural(result.length, 'asset or folder', 'assets and folders')}`,
      );
      const stored = uploads.flatMap(({ result }) => result);
      return { data: stored, text: () => linksTable(stored) };
    },
  };
}

/** The `pds folders …` commands. */
export const folderCommands: Command[] = [
  ls,
  details,
  mkdir,
  rm,
  mv,
  rename,
  publicize,
  uploadCommand('folders upload'),
  uploadCommand('folders upload-archive'),
];
