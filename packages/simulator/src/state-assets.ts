/**
 * The asset folder tree of `/v1/assetFolders`: folders and assets (files stored on disk) under a root
 * `/`. Every change to a folder's direct content gives it a new content version, from which its listing's
 * ETag is derived. Checks that decide an HTTP status (404, 409) live in the routes; the rules for names
 * and paths live here because the body paths, URL paths and archive members share them.
 */
import { ASSET_FOLDER_OPERATIONS } from '@pds-bridge/bridge/pds/resources';
import { etagOf } from './caching.ts';
import { SimulatorHttpError } from './errors.ts';

/** Who changed something, and when (epoch milliseconds). */
export interface Audit {
  user: string;
  at: number;
}

interface NodeBase {
  id: number;
  name: string;
  createdAt: number;
  createdBy: string;
  changedAt: number;
  changedBy: string;
}

export interface FolderNode extends NodeBase {
  linkType: 'FOLDER';
  /** Undefined for the root only. */
  parent: FolderNode | undefined;
  children: Map<string, AssetFolderNode>;
  /** Changes with every change of the direct content; the listing's ETag derives from it. */
  version: number;
}

/** The stored bytes of an asset. */
export interface AssetFile {
  diskPath: string;
  size: number;
  sha256: string;
  contentType: string;
}

export interface AssetNode extends NodeBase, AssetFile {
  linkType: 'ASSET';
  parent: FolderNode;
  /** Set once the asset is converted to a public asset: the secret part of its public URL. */
  publicToken?: string;
}

export type AssetFolderNode = FolderNode | AssetNode;

/** Longest asset or folder name. */
export const MAX_ASSET_NAME_LENGTH = 255;

const RESERVED_ROOT_NAMES = new Set<string>(ASSET_FOLDER_OPERATIONS);
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/**
 * Checks a segment used to look something up: not empty, not `.` or `../../bridge/src`, no `/` (a decoded `%2F`).
 *
 * @throws SimulatorHttpError 400 naming the segment
 */
export function checkPathSegment(segment: string, where: string): void {
  if (segment === '' || segment === '.' || segment === '..' || segment.includes('/')) {
    throw new SimulatorHttpError(
      400,
      `${where} has the segment '${segment}'; a path is '/' or '/name/name…' with non-empty names other than '.' and '..'`,
    );
  }
}

/**
 * The segments of a path from the URL (`rest` of a `*path` route): `[]` and `['']` are the root.
 *
 * @example
 * segmentsOfRest(['a', 'b.pdf']); // ['a', 'b.pdf']
 */
export function segmentsOfRest(rest: readonly string[]): string[] {
  if (rest.length === 0 || (rest.length === 1 && rest[0] === '')) return [];
  for (const segment of rest) checkPathSegment(segment, 'The path');
  return [...rest];
}

/**
 * The segments of a path from a request body: `/` is the root, `/a/b` and `a/b` are the same.
 *
 * @example
 * segmentsOfPath('/images/logos'); // ['images', 'logos']
 */
export function segmentsOfPath(path: string, where = 'The path'): string[] {
  if (path === '/') return [];
  const segments = (path.startsWith('/') ? path.slice(1) : path).split('/');
  for (const segment of segments) checkPathSegment(segment, `${where} '${path}'`);
  return segments;
}

/**
 * Checks a name given to a new or renamed asset or folder: a valid path segment of at most 255
 * characters without control characters; directly under the root not one of the operation segments
 * (`_getDetails`, …), which would make it unreachable.
 *
 * @throws SimulatorHttpError 400 naming the problem
 */
export function checkAssetName(name: string, parentIsRoot: boolean): void {
  checkPathSegment(name, `The name '${name}'`);
  if (name.length > MAX_ASSET_NAME_LENGTH || CONTROL_CHARACTERS.test(name)) {
    throw new SimulatorHttpError(
      400,
      `The name '${name.slice(0, 40)}' is longer than ${MAX_ASSET_NAME_LENGTH} characters or holds control characters; choose another`,
    );
  }
  if (parentIsRoot && RESERVED_ROOT_NAMES.has(name)) {
    throw new SimulatorHttpError(
      400,
      `'${name}' cannot be used directly under the root: /v1/assetFolders/${name}… is an operation; choose another name`,
    );
  }
}

/**
 * The tree. Ids are int64-safe integers: the root is 1, every new node takes the next one.
 *
 * @example
 * const tree = new AssetFolderTree({ user: 'system', at: Date.now() });
 * const images = tree.createFolder(tree.root, 'images', { user: 'demo', at: Date.now() });
 * tree.pathOf(images); // '/images'
 */
export class AssetFolderTree {
  readonly root: FolderNode;
  readonly #publicAssets = new Map<string, AssetNode>();
  #nextId = 2;
  #nextVersion = 1;

  constructor(audit: Audit) {
    this.root = {
      linkType: 'FOLDER',
      id: 1,
      name: '',
      parent: undefined,
      children: new Map(),
      version: 0,
      ...audited(audit),
    };
  }

  /** The node at `segments` (already checked), if any; `[]` is the root. */
  find(segments: readonly string[]): AssetFolderNode | undefined {
    let node: AssetFolderNode = this.root;
    for (const segment of segments) {
      if (node.linkType !== 'FOLDER') return undefined;
      const child: AssetFolderNode | undefined = node.children.get(segment);
      if (!child) return undefined;
      node = child;
    }
    return node;
  }

  /** The absolute path: `/` for the root, `/a/b.pdf` otherwise. */
  pathOf(node: AssetFolderNode): string {
    const names: string[] = [];
    for (let at: AssetFolderNode | undefined = node; at?.parent; at = at.parent) names.unshift(at.name);
    return `/${names.join('/')}`;
  }

  /** True while the node is still in the tree (not deleted, directly or with a folder above it). */
  isAttached(node: AssetFolderNode): boolean {
    let at: AssetFolderNode = node;
    while (at.parent) {
      if (at.parent.children.get(at.name) !== at) return false;
      at = at.parent;
    }
    return at === this.root;
  }

  /** True when `node` is `folder` or lies inside it. */
  isWithin(node: AssetFolderNode, folder: FolderNode): boolean {
    for (let at: AssetFolderNode | undefined = node; at; at = at.parent) if (at === folder) return true;
    return false;
  }

  /** The ETag of a folder listing: changes whenever its direct content or its own path changes. */
  etagOf(folder: FolderNode): string {
    return etagOf('folder', folder.id, folder.version, this.pathOf(folder));
  }

  /** Creates `name` in `parent` (the caller checked the name and that it is free). */
  createFolder(parent: FolderNode, name: string, audit: Audit): FolderNode {
    const folder: FolderNode = {
      linkType: 'FOLDER',
      id: this.#takeId(),
      name,
      parent,
      children: new Map(),
      version: this.#takeVersion(),
      ...audited(audit),
    };
    parent.children.set(name, folder);
    this.#touch(parent);
    return folder;
  }

  /**
   * Stores an asset as `name` in `parent`; an asset of that name is replaced (it keeps its id, creation
   * and public URL). Returns the asset and the file it no longer uses, for the caller to delete.
   */
  putAsset(
    parent: FolderNode,
    name: string,
    file: AssetFile,
    audit: Audit,
  ): { asset: AssetNode; oldFile?: AssetFile } {
    const existing = parent.children.get(name);
    this.#touch(parent);
    if (existing?.linkType === 'ASSET') {
      const oldFile = pickFile(existing);
      Object.assign(existing, pickFile(file), { changedAt: audit.at, changedBy: audit.user });
      return { asset: existing, oldFile };
    }
    const asset: AssetNode = {
      linkType: 'ASSET',
      id: this.#takeId(),
      name,
      parent,
      ...pickFile(file),
      ...audited(audit),
    };
    parent.children.set(name, asset);
    return { asset };
  }

  /** Removes a node (a folder with everything in it); returns the removed assets, whose files the caller deletes. */
  remove(node: AssetFolderNode): AssetNode[] {
    if (!node.parent) throw new Error('the root folder cannot be removed');
    node.parent.children.delete(node.name);
    this.#touch(node.parent);
    const removed = [...this.assetsUnder(node)];
    for (const asset of removed) if (asset.publicToken) this.#publicAssets.delete(asset.publicToken);
    return removed;
  }

  /** Moves a node into `destination` under its current name (the caller checked the name is free there). */
  move(node: AssetFolderNode, destination: FolderNode, audit: Audit): void {
    if (!node.parent) throw new Error('the root folder cannot be moved');
    node.parent.children.delete(node.name);
    this.#touch(node.parent);
    this.#attach(node, destination, node.name, audit);
  }

  /** Renames a node in its folder (the caller checked the new name is free). */
  rename(node: AssetFolderNode, name: string, audit: Audit): void {
    if (!node.parent) throw new Error('the root folder cannot be renamed');
    node.parent.children.delete(node.name);
    this.#attach(node, node.parent, name, audit);
  }

  /** Makes an asset public under `token`; an already public asset keeps its token. */
  makePublic(asset: AssetNode, token: string, audit: Audit): void {
    if (asset.publicToken) return;
    asset.publicToken = token;
    asset.changedAt = audit.at;
    asset.changedBy = audit.user;
    this.#publicAssets.set(token, asset);
    this.#touch(asset.parent);
  }

  /** The public asset with that token, if it still exists. */
  publicAsset(token: string): AssetNode | undefined {
    return this.#publicAssets.get(token);
  }

  /** Every asset in a subtree (or the asset itself), depth first. */
  *assetsUnder(node: AssetFolderNode): Generator<AssetNode> {
    if (node.linkType === 'ASSET') {
      yield node;
      return;
    }
    for (const child of node.children.values()) yield* this.assetsUnder(child);
  }

  /** Every folder and asset inside `folder` with its path relative to it (`a/b.pdf`), parents first. */
  *entriesUnder(folder: FolderNode, prefix = ''): Generator<{ relativePath: string; node: AssetFolderNode }> {
    for (const child of sortedChildren(folder)) {
      const relativePath = `${prefix}${child.name}`;
      yield { relativePath, node: child };
      if (child.linkType === 'FOLDER') yield* this.entriesUnder(child, `${relativePath}/`);
    }
  }

  #attach(node: AssetFolderNode, parent: FolderNode, name: string, audit: Audit): void {
    node.name = name;
    node.parent = parent;
    node.changedAt = audit.at;
    node.changedBy = audit.user;
    parent.children.set(name, node);
    this.#touch(parent);
    // A moved or renamed folder's listing shows other paths: its ETag must change too.
    if (node.linkType === 'FOLDER') this.#touch(node);
  }

  #touch(folder: FolderNode): void {
    folder.version = this.#takeVersion();
  }

  #takeId(): number {
    const id = this.#nextId;
    this.#nextId += 1;
    return id;
  }

  #takeVersion(): number {
    const version = this.#nextVersion;
    this.#nextVersion += 1;
    return version;
  }
}

/** A folder's content as listed: folders first, then assets, each by name (code-point order). */
export function sortedChildren(folder: FolderNode): AssetFolderNode[] {
  const byName = (a: AssetFolderNode, b: AssetFolderNode) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const children = [...folder.children.values()];
  return [
    ...children.filter((child) => child.linkType === 'FOLDER').sort(byName),
    ...children.filter((child) => child.linkType === 'ASSET').sort(byName),
  ];
}

function audited(audit: Audit) {
  return { createdAt: audit.at, createdBy: audit.user, changedAt: audit.at, changedBy: audit.user };
}

function pickFile({ diskPath, size, sha256, contentType }: AssetFile): AssetFile {
  return { diskPath, size, sha256, contentType };
}
