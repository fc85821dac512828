/**
 * The `/v1/assetFolders` family: list (ETag, If-None-Match, allowCaching, download), details, create,
 * delete, delete items, move, rename, convert to public asset and the two uploads, with the answers
 * chosen in docs/spec-gaps.md ("/v1 families"). `{path}` follows the operation segment directly.
 */
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { AssetFolderLink, FolderPathName } from '@pds-bridge/bridge/pds/resources';
import { ZipFile } from 'yazl';
import { z } from 'zod';
import { applyUpload, receiveUpload } from '../asset-uploads.ts';
import { cacheControlFor, conditionalJson } from '../caching.ts';
import { SimulatorHttpError } from '../errors.ts';
import { booleanParam } from '../query.ts';
import { emptyReply, jsonReply, type Reply } from '../reply.ts';
import { parseBody, readOptionalJsonBody } from '../request-body.ts';
import type { RequestContext, Route } from '../router.ts';
import type { SimulatorState } from '../state.ts';
import {
  type AssetFile,
  type AssetFolderNode,
  type AssetFolderTree,
  type AssetNode,
  type Audit,
  checkAssetName,
  type FolderNode,
  segmentsOfPath,
  segmentsOfRest,
  sortedChildren,
} from '../state-assets.ts';

/** What the asset folder handlers work on. */
export interface AssetFolderDeps {
  state: SimulatorState;
  uploadDir: string;
}

/** Path prefix of public asset URLs (served without credentials). */
export const PUBLIC_ASSET_PATH = '/public/assets';

const folderPathNameSchema = z.looseObject({ path: z.string().optional(), name: z.string().optional() });
const deleteItemsSchema = z.object({ paths: z.array(z.string()) });

const BASE = '/v1/assetFolders';

/**
 * The route table of the `/v1/assetFolders` family (operation segments before the bare `{path}` routes,
 * which match everything else) and the public asset URLs.
 *
 * @example
 * new Router([...assetFolderRoutes({ state, uploadDir })]);
 */
export function assetFolderRoutes(deps: AssetFolderDeps): Route[] {
  const change = (kind: AssetFolderNode['linkType'], how: NodeChange) => (c: RequestContext) =>
    changeNode(deps, c, kind, how);
  return [
    {
      method: 'GET',
      path: `${PUBLIC_ASSET_PATH}/:token/:name`,
      handler: (c) => publicAsset(deps, c),
      signedOut: 'public',
    },
    { method: 'PUT', path: `${BASE}/_convertToPublicAsset/*path`, handler: (c) => convert(deps, c) },
    { method: 'DELETE', path: `${BASE}/_deleteItems`, handler: (c) => deleteItems(deps, c) },
    { method: 'DELETE', path: `${BASE}/_delete/*path`, handler: (c) => deleteOne(deps, c) },
    { method: 'GET', path: `${BASE}/_getDetails/*path`, handler: (c) => details(deps, c) },
    { method: 'PUT', path: `${BASE}/_moveAsset/*path`, handler: change('ASSET', MOVE) },
    { method: 'PUT', path: `${BASE}/_moveFolder/*path`, handler: change('FOLDER', MOVE) },
    { method: 'PUT', path: `${BASE}/_renameAsset/*path`, handler: change('ASSET', RENAME) },
    { method: 'PUT', path: `${BASE}/_renameFolder/*path`, handler: change('FOLDER', RENAME) },
    { method: 'POST', path: `${BASE}/_uploadArchive/*path`, handler: (c) => upload(deps, c, true) },
    { method: 'POST', path: `${BASE}/_uploadFile/*path`, handler: (c) => upload(deps, c, false) },
    { method: 'GET', path: `${BASE}/*path`, handler: (c) => list(deps, c) },
    { method: 'POST', path: `${BASE}/*path`, handler: (c) => createFolder(deps, c) },
  ];
}

async function list({ state }: AssetFolderDeps, { req, rest, query }: RequestContext): Promise<Reply> {
  const allowCaching = booleanParam(query, 'allowCaching');
  const download = booleanParam(query, 'download');
  const tree = state.assetFolders;
  const node = requireNode(tree, segmentsOfRest(rest));
  if (download) return downloadReply(tree, node, allowCaching);
  if (node.linkType !== 'FOLDER') {
    throw new SimulatorHttpError(
      400,
      `'${tree.pathOf(node)}' is an asset, not a folder; list its folder, read it with _getDetails or fetch it with download=true`,
    );
  }
  const links = sortedChildren(node).map((child) => linkOf(tree, child, req));
  return conditionalJson(req, links, tree.etagOf(node), allowCaching);
}

function details({ state }: AssetFolderDeps, { req, rest }: RequestContext): Reply {
  const tree = state.assetFolders;
  return jsonReply(200, linkOf(tree, requireNode(tree, segmentsOfRest(rest)), req));
}

async function createFolder({ state }: AssetFolderDeps, { req, rest, user }: RequestContext): Promise<Reply> {
  const body = await readFolderPathName(req);
  const tree = state.assetFolders;
  const segments = segmentsOfRest(rest);
  const target = body.name === undefined ? segments : [...segments, body.name];
  if (target.length === 0) throw new SimulatorHttpError(409, 'The root folder always exists');
  const parent = requireFolder(tree, target.slice(0, -1), 'The parent folder');
  const name = target.at(-1) as string;
  checkAssetName(name, parent === tree.root);
  requireFree(tree, parent, name);
  return jsonReply(201, linkOf(tree, tree.createFolder(parent, name, auditOf(user)), req));
}

async function deleteOne({ state }: AssetFolderDeps, { rest }: RequestContext): Promise<Reply> {
  const tree = state.assetFolders;
  const node = requireNode(tree, segmentsOfRest(rest));
  if (node === tree.root) throw new SimulatorHttpError(400, 'The root folder cannot be deleted');
  await removeFiles(tree.remove(node));
  return emptyReply(204);
}

async function deleteItems({ state }: AssetFolderDeps, { req }: RequestContext): Promise<Reply> {
  const body = await readOptionalJsonBody(req);
  if (body === undefined) {
    throw new SimulatorHttpError(400, 'Send a JSON body {"paths": ["/a", "/b/c.pdf"]} naming what to delete');
  }
  const { paths } = parseBody(deleteItemsSchema, body);
  const tree = state.assetFolders;
  const nodes = paths.map((path) => tree.find(segmentsOfPath(path, 'The path')));
  const unknown = paths.filter((_, index) => nodes[index] === undefined);
  if (unknown.length > 0) {
    throw new SimulatorHttpError(
      404,
      `Nothing exists at ${unknown.map((path) => `'${path}'`).join(', ')}; nothing was deleted`,
    );
  }
  if (nodes.includes(tree.root)) throw new SimulatorHttpError(400, 'The root folder cannot be deleted');
  for (const node of nodes as AssetFolderNode[]) {
    // A path inside a folder deleted earlier in the list is gone already.
    if (tree.isAttached(node)) await removeFiles(tree.remove(node));
  }
  return emptyReply(204);
}

/** How a move or a rename changes a node: the body field it needs, the words of its refusals, the change. */
interface NodeChange {
  verb: 'moved' | 'renamed';
  operation: '_move' | '_rename';
  field: keyof FolderPathName;
  missingField: string;
  apply(tree: AssetFolderTree, node: AssetFolderNode, value: string, audit: Audit): void;
}

const MOVE: NodeChange = {
  verb: 'moved',
  operation: '_move',
  field: 'path',
  missingField: 'Send a JSON body {"path": "/destination/folder"} naming where to move it',
  apply: moveNode,
};

const RENAME: NodeChange = {
  verb: 'renamed',
  operation: '_rename',
  field: 'name',
  missingField: 'Send a JSON body {"name": "new name"} naming the new name',
  apply: renameNode,
};

/**
 * A move or a rename: the node must be of the route's kind (a refusal names the other kind's operation,
 * `_moveFolder` for `_moveAsset` on a folder); the answer is the node's link after the change.
 */
async function changeNode(
  { state }: AssetFolderDeps,
  { req, rest, user }: RequestContext,
  kind: AssetFolderNode['linkType'],
  change: NodeChange,
): Promise<Reply> {
  const body = await readFolderPathName(req);
  const tree = state.assetFolders;
  const otherKind = `${change.operation}${kind === 'ASSET' ? 'Folder' : 'Asset'}`;
  const node = requireKind(tree, segmentsOfRest(rest), kind, change.verb, otherKind);
  const value = body[change.field];
  if (value === undefined) throw new SimulatorHttpError(400, change.missingField);
  change.apply(tree, node, value, auditOf(user));
  return jsonReply(200, linkOf(tree, node, req));
}

/** Moves `node` into the folder at `path`; a node already there stays as it is. */
function moveNode(tree: AssetFolderTree, node: AssetFolderNode, path: string, audit: Audit): void {
  const destination = requireFolder(tree, segmentsOfPath(path, 'The destination'), 'The destination');
  if (destination === node.parent) return;
  if (node.linkType === 'FOLDER' && tree.isWithin(destination, node)) {
    throw new SimulatorHttpError(
      400,
      `'${tree.pathOf(node)}' cannot move into itself or a folder inside it; choose another destination`,
    );
  }
  checkAssetName(node.name, destination === tree.root);
  requireFree(tree, destination, node.name);
  tree.move(node, destination, audit);
}

/** Renames `node` to `name`; the same name leaves it as it is. */
function renameNode(tree: AssetFolderTree, node: AssetFolderNode, name: string, audit: Audit): void {
  if (name === node.name) return;
  const parent = node.parent as FolderNode;
  checkAssetName(name, parent === tree.root);
  requireFree(tree, parent, name);
  tree.rename(node, name, audit);
}

async function convert({ state }: AssetFolderDeps, { req, rest, user }: RequestContext): Promise<Reply> {
  // The body (FolderPathName) is read for well-formedness only: converting needs nothing but the path.
  await readFolderPathName(req);
  const tree = state.assetFolders;
  const asset = requireKind(tree, segmentsOfRest(rest), 'ASSET', 'made public') as AssetNode;
  tree.makePublic(asset, state.newUuid(), auditOf(user));
  return jsonReply(200, linkOf(tree, asset, req));
}

async function upload(
  { state, uploadDir }: AssetFolderDeps,
  { req, rest, user }: RequestContext,
  expand: boolean,
): Promise<Reply> {
  const tree = state.assetFolders;
  const segments = segmentsOfRest(rest);
  const destination = requireFolder(tree, segments, 'The destination folder');
  const received = await receiveUpload(req, state, uploadDir, expand);
  let applied: ReturnType<typeof applyUpload>;
  try {
    // The folder may have gone (or been replaced) while the body streamed in.
    const target = tree.isAttached(destination)
      ? destination
      : requireFolder(tree, segments, 'The destination folder');
    applied = applyUpload(tree, target, received.items, auditOf(user));
  } catch (error) {
    await rm(received.directory, { recursive: true, force: true });
    throw error;
  }
  await removeFiles(applied.unusedFiles);
  return jsonReply(
    201,
    applied.nodes.map((node) => linkOf(tree, node, req)),
  );
}

function publicAsset({ state }: AssetFolderDeps, { params, query }: RequestContext): Reply {
  const asset = state.assetFolders.publicAsset(params.token ?? '');
  if (!asset || asset.name !== params.name) {
    throw new SimulatorHttpError(
      404,
      'No public asset has this URL; it was deleted, renamed or never public',
    );
  }
  return assetBytes(asset, booleanParam(query, 'download') === true, true);
}

function downloadReply(
  tree: AssetFolderTree,
  node: AssetFolderNode,
  allowCaching: boolean | undefined,
): Reply {
  if (node.linkType === 'ASSET') {
    const reply = assetBytes(node, true, false);
    return { ...reply, headers: { ...reply.headers, 'cache-control': cacheControlFor(allowCaching) } };
  }
  const zip = new ZipFile();
  for (const { relativePath, node: entry } of tree.entriesUnder(node)) {
    const mtime = new Date(entry.changedAt);
    if (entry.linkType === 'FOLDER') zip.addEmptyDirectory(relativePath, { mtime });
    else zip.addFile(entry.diskPath, relativePath, { mtime });
  }
  zip.end();
  const output = zip.outputStream as Readable;
  // A file deleted while the ZIP streams fails the ZipFile, not its stream: end the answer there.
  zip.on('error', (error: Error) => output.destroy(error));
  return {
    status: 200,
    headers: {
      'content-type': 'application/zip',
      'content-disposition': contentDisposition(`${node.name || 'root'}.zip`),
      'cache-control': cacheControlFor(allowCaching),
    },
    body: output,
  };
}

function assetBytes(asset: AssetNode, attachment: boolean, isPublic: boolean): Reply {
  const headers: Record<string, string> = {
    'content-type': asset.contentType,
    'content-length': String(asset.size),
  };
  if (attachment) headers['content-disposition'] = contentDisposition(asset.name);
  if (isPublic) headers['cache-control'] = 'public, max-age=300';
  return { status: 200, headers, body: createReadStream(asset.diskPath) };
}

/** `attachment` with an ASCII fallback and the exact UTF-8 name (RFC 6266 / 8187). */
function contentDisposition(fileName: string): string {
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const exact = encodeURIComponent(fileName).replace(
    /['()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${fallback}"; filename*=UTF-8''${exact}`;
}

/** The wire form of a node; `publicUrl` is built from the Host the client used. */
function linkOf(tree: AssetFolderTree, node: AssetFolderNode, req: IncomingMessage): AssetFolderLink {
  const link: AssetFolderLink = {
    name: node.name,
    linkType: node.linkType,
    createdAt: new Date(node.createdAt).toISOString(),
    createdBy: node.createdBy,
    changedAt: new Date(node.changedAt).toISOString(),
    changedBy: node.changedBy,
  };
  if (node.parent) link.parentFolderId = node.parent.id;
  link.id = node.id;
  link.path = tree.pathOf(node);
  if (node.linkType === 'ASSET') {
    link.size = node.size;
    link.contentType = node.contentType;
    link.public = node.publicToken !== undefined;
    if (node.publicToken) {
      const host = req.headers.host ?? `${req.socket.localAddress}:${req.socket.localPort}`;
      link.publicUrl = `http://${host}${PUBLIC_ASSET_PATH}/${node.publicToken}/${encodeURIComponent(node.name)}`;
    }
  }
  return link;
}

async function readFolderPathName(req: IncomingMessage): Promise<FolderPathName> {
  const body = (await readOptionalJsonBody(req)) ?? {};
  return parseBody(folderPathNameSchema, body);
}

function requireNode(tree: AssetFolderTree, segments: string[]): AssetFolderNode {
  const node = tree.find(segments);
  if (!node) {
    throw new SimulatorHttpError(404, `Nothing exists at '/${segments.join('/')}'; check the path`);
  }
  return node;
}

function requireFolder(tree: AssetFolderTree, segments: string[], what: string): FolderNode {
  const node = tree.find(segments);
  const path = `/${segments.join('/')}`;
  if (!node) throw new SimulatorHttpError(404, `${what} '${path}' does not exist; create it first`);
  if (node.linkType !== 'FOLDER') {
    throw new SimulatorHttpError(400, `${what} '${path}' is an asset, not a folder`);
  }
  return node;
}

const KIND_NAMES = { ASSET: 'an asset', FOLDER: 'a folder' } as const;

/** The node at `segments` if it is of `kind` and not the root; 404 / 400 otherwise. `hint` names the fitting operation. */
function requireKind(
  tree: AssetFolderTree,
  segments: string[],
  kind: AssetFolderNode['linkType'],
  action: string,
  hint = '',
): AssetFolderNode {
  const node = requireNode(tree, segments);
  if (node === tree.root) throw new SimulatorHttpError(400, `The root folder cannot be ${action}`);
  if (node.linkType !== kind) {
    throw new SimulatorHttpError(
      400,
      `'${tree.pathOf(node)}' is ${KIND_NAMES[node.linkType]}, not ${KIND_NAMES[kind]}${hint ? `; use ${hint}` : ''}`,
    );
  }
  return node;
}

function requireFree(tree: AssetFolderTree, folder: FolderNode, name: string): void {
  const existing = folder.children.get(name);
  if (existing) {
    throw new SimulatorHttpError(
      409,
      `'${tree.pathOf(existing)}' already exists (${existing.linkType === 'FOLDER' ? 'a folder' : 'an asset'}); choose another name or delete it first`,
    );
  }
}

function auditOf(user: string): Audit {
  return { user, at: Date.now() };
}

async function removeFiles(files: readonly AssetFile[]): Promise<void> {
  await Promise.all(files.map((file) => rm(file.diskPath, { force: true })));
}
