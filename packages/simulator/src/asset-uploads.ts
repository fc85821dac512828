/**
 * Uploads into the asset folder tree (`_uploadFile`, `_uploadArchive`): `file` parts are streamed to
 * disk, ZIP archives expanded member by member, and the result applied to the tree all or nothing:
 * every name and every folder-versus-asset conflict is checked before the first change.
 */
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { SimulatorHttpError } from './errors.ts';
import type { SimulatorState } from './state.ts';
import {
  type AssetFile,
  type AssetFolderNode,
  type AssetFolderTree,
  type Audit,
  checkAssetName,
  checkPathSegment,
  type FolderNode,
} from './state-assets.ts';
import {
  eachArchiveMember,
  type ReceivedPart,
  receiveInto,
  requireMultipart,
  storeStream,
} from './uploads.ts';

/** What an upload puts into the destination folder, in order: folders to create, assets to store. */
export type UploadItem =
  | { kind: 'FOLDER'; segments: string[] }
  | { kind: 'ASSET'; segments: string[]; file: AssetFile };

/** Content type of an asset uploaded without one, and of archive members. */
export const DEFAULT_ASSET_CONTENT_TYPE = 'application/octet-stream';

/** The received upload: its items and the directory holding their bytes (removed by `discard`). */
export interface ReceivedUpload {
  items: UploadItem[];
  directory: string;
}

/**
 * Receives the `file` parts of an upload into a fresh directory under `uploadDir/assets`; each part is
 * one asset named after its file name, or, with `expand`, a ZIP whose members become folders and assets.
 * 415 unless multipart, 400 without a `file` part or for an unreadable archive.
 */
export async function receiveUpload(
  req: IncomingMessage,
  state: SimulatorState,
  uploadDir: string,
  expand: boolean,
): Promise<ReceivedUpload> {
  requireMultipart(req);
  const directory = join(uploadDir, 'assets', state.newUuid());
  return receiveInto(req, state, directory, expand ? 'the archive' : 'the file', async (parts) => {
    const items: UploadItem[] = [];
    for (const part of parts) {
      if (expand) items.push(...(await expandArchive(part, state, directory)));
      else items.push({ kind: 'ASSET', segments: [baseName(part.fileName)], file: fileOf(part) });
    }
    return { items, directory };
  });
}

/**
 * Applies received items to `destination`: missing folders are created, assets stored (an asset of the
 * same name is replaced). 400 for a refused name and 409 when an item needs a folder where an asset is,
 * or an asset where a folder is; nothing changes then. Returns the created folders and stored assets in
 * order, and the files that replaced assets no longer use.
 */
export function applyUpload(
  tree: AssetFolderTree,
  destination: FolderNode,
  items: readonly UploadItem[],
  audit: Audit,
): { nodes: AssetFolderNode[]; unusedFiles: AssetFile[] } {
  checkUpload(tree, destination, items);
  const nodes = new Set<AssetFolderNode>();
  const unusedFiles: AssetFile[] = [];
  for (const item of items) {
    const folderSegments = item.kind === 'FOLDER' ? item.segments : item.segments.slice(0, -1);
    let folder = destination;
    for (const segment of folderSegments) {
      const existing = folder.children.get(segment);
      if (existing?.linkType === 'FOLDER') folder = existing;
      else {
        folder = tree.createFolder(folder, segment, audit);
        nodes.add(folder);
      }
    }
    if (item.kind === 'ASSET') {
      const { asset, oldFile } = tree.putAsset(folder, item.segments.at(-1) as string, item.file, audit);
      nodes.add(asset);
      if (oldFile) unusedFiles.push(oldFile);
    }
  }
  return { nodes: [...nodes], unusedFiles };
}

/** Checks every item against the tree and the items before it, changing nothing. */
function checkUpload(tree: AssetFolderTree, destination: FolderNode, items: readonly UploadItem[]): void {
  const planned = new Map<string, 'FOLDER' | 'ASSET'>();
  const kindAt = (segments: string[]) =>
    planned.get(segments.join('/')) ?? relativeNode(destination, segments)?.linkType;
  const destinationIsRoot = destination === tree.root;
  for (const item of items) {
    item.segments.forEach((segment, index) => {
      checkAssetName(segment, destinationIsRoot && index === 0);
    });
    const folders = item.kind === 'FOLDER' ? item.segments.length : item.segments.length - 1;
    for (let depth = 1; depth <= folders; depth += 1) {
      const segments = item.segments.slice(0, depth);
      if (kindAt(segments) === 'ASSET') {
        throw new SimulatorHttpError(
          409,
          `'${segments.join('/')}' is an asset, but the upload needs a folder there; delete or rename the asset first`,
        );
      }
      planned.set(segments.join('/'), 'FOLDER');
    }
    if (item.kind === 'ASSET') {
      if (kindAt(item.segments) === 'FOLDER') {
        throw new SimulatorHttpError(
          409,
          `'${item.segments.join('/')}' is a folder, but the upload stores an asset there; delete or rename the folder first`,
        );
      }
      planned.set(item.segments.join('/'), 'ASSET');
    }
  }
}

function relativeNode(destination: FolderNode, segments: string[]): AssetFolderNode | undefined {
  let node: AssetFolderNode | undefined = destination;
  for (const segment of segments) {
    node = node?.linkType === 'FOLDER' ? node.children.get(segment) : undefined;
  }
  return node === destination ? undefined : node;
}

async function expandArchive(
  archive: ReceivedPart,
  state: SimulatorState,
  directory: string,
): Promise<UploadItem[]> {
  const items: UploadItem[] = [];
  await eachArchiveMember(archive, 'upload a valid ZIP', async (member) => {
    const { fileName, isDirectory } = member;
    const segments = (isDirectory ? fileName.slice(0, -1) : fileName).split('/');
    for (const segment of segments) checkPathSegment(segment, `Archive member '${fileName}'`);
    if (isDirectory) {
      items.push({ kind: 'FOLDER', segments });
      return;
    }
    const stored = await storeStream(await member.open(), join(directory, state.newUuid()));
    items.push({ kind: 'ASSET', segments, file: { ...stored, contentType: DEFAULT_ASSET_CONTENT_TYPE } });
  });
  return items;
}

function fileOf(part: ReceivedPart): AssetFile {
  const { diskPath, size, sha256, contentType } = part;
  return { diskPath, size, sha256, contentType: contentType || DEFAULT_ASSET_CONTENT_TYPE };
}

/** The last segment of a sent file name (some clients send a whole path); 400 when nothing is left. */
function baseName(fileName: string): string {
  const name = fileName.split(/[\\/]/).at(-1) ?? '';
  checkPathSegment(name, `The file name '${fileName}'`);
  return name;
}
