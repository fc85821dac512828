/**
 * The `/v1/assetFolders` family: list a folder (conditional, with allowCaching), download a folder or
 * asset, details, create, delete, delete items, move, rename, convert to a public asset, and the file and
 * archive uploads.
 *
 * `{path}` follows the operation segment directly (`/v1/assetFolders/_getDetails/a/b.pdf`). A path is
 * normalised here (leading `/`, no empty segments), each segment is percent-encoded on its own, and `.` /
 * `..` are refused with `PdsInvalidRequestError` before any request: URL normalisation would make them
 * address a different folder than the caller named.
 */
import type { Readable } from 'node:stream';
import { conditionalAnswer, requestJson } from '../answers.ts';
import { optionalEtag } from '../checks.ts';
import { PdsInvalidRequestError, type PdsRequestLine } from '../errors.ts';
import { multipartRequest, type UploadSource } from '../multipart.ts';
import type { PdsCallOptions } from '../options.ts';
import { encodePathSegment } from '../paths.ts';
import { headerOf, type PdsConditional, type PdsTransport } from '../transport.ts';
import { schemasV1 } from './schemas.ts';
import { ASSET_FOLDER_OPERATIONS, type AssetFolderLink } from './types.ts';

const BASE = '/v1/assetFolders';
/** Asset-folder operations send JSON and ask for JSON (the spec's `Accept: application/json; charset=UTF-8`). */
const JSON_ACCEPT = 'application/json; charset=UTF-8';
const RESERVED_ROOT_NAMES = new Set<string>(ASSET_FOLDER_OPERATIONS);

/** Options of a conditional folder listing. */
export interface AssetFolderListOptions extends PdsCallOptions {
  /** The ETag of a listing held by the caller: a current one answers `{ notModified: true }`. */
  ifNoneMatch?: string;
  /** Lets caches reuse the answer (`Cache-Control: private, max-age=60` in the simulator). */
  allowCaching?: boolean;
}

/** Options of a download. */
export interface AssetFolderDownloadOptions extends PdsCallOptions {
  allowCaching?: boolean;
}

/** A downloaded asset (its bytes) or folder (a ZIP): a stream the caller must consume or destroy. */
export interface AssetDownload {
  stream: Readable;
  contentType?: string;
  /** Absent when the server streams without a length (a folder's ZIP). */
  contentLength?: number;
  /** From `Content-Disposition`, when the server names the file. */
  fileName?: string;
  cacheControl?: string;
}

/**
 * The asset folder operations. A `path` is absolute or relative to the root (`/a/b`, `a/b` and `/a//b/`
 * are the same; `/` or `''` is the root).
 */
export interface AssetFolderOperations {
  /**
   * `GET /v1/assetFolders{path}`: the folder's content (folders first). With `ifNoneMatch` naming the
   * current ETag the answer is `{ notModified: true, etag }`, not an error.
   */
  list(path: string, options?: AssetFolderListOptions): Promise<PdsConditional<AssetFolderLink[]>>;
  /** `GET /v1/assetFolders{path}?download=true`: an asset's bytes or a folder as a ZIP, streamed. */
  download(path: string, options?: AssetFolderDownloadOptions): Promise<AssetDownload>;
  /** `GET /v1/assetFolders/_getDetails{path}`: one asset or folder. */
  details(path: string, options?: PdsCallOptions): Promise<AssetFolderLink>;
  /** `POST /v1/assetFolders{path}`: creates the folder `path`, or `path/name` when a name is given. */
  create(path: string, options?: { name?: string } & PdsCallOptions): Promise<AssetFolderLink>;
  /** `DELETE /v1/assetFolders/_delete{path}`: deletes an asset, or a folder with everything in it. */
  delete(path: string, options?: PdsCallOptions): Promise<void>;
  /** `DELETE /v1/assetFolders/_deleteItems`: deletes several assets and folders, all or nothing. */
  deleteItems(paths: readonly string[], options?: PdsCallOptions): Promise<void>;
  /** `PUT /v1/assetFolders/_moveAsset{path}`: moves the asset into the folder `destination`. */
  moveAsset(path: string, destination: string, options?: PdsCallOptions): Promise<AssetFolderLink>;
  /** `PUT /v1/assetFolders/_moveFolder{path}`: moves the folder into the folder `destination`. */
  moveFolder(path: string, destination: string, options?: PdsCallOptions): Promise<AssetFolderLink>;
  /** `PUT /v1/assetFolders/_renameAsset{path}`: gives the asset a new name in its folder. */
  renameAsset(path: string, name: string, options?: PdsCallOptions): Promise<AssetFolderLink>;
  /** `PUT /v1/assetFolders/_renameFolder{path}`: gives the folder a new name in its parent. */
  renameFolder(path: string, name: string, options?: PdsCallOptions): Promise<AssetFolderLink>;
  /** `PUT /v1/assetFolders/_convertToPublicAsset{path}`: makes the asset public (see `publicUrl`). */
  convertToPublicAsset(path: string, options?: PdsCallOptions): Promise<AssetFolderLink>;
  /** `POST /v1/assetFolders/_uploadFile{path}`: stores one file (streamed) in the folder. */
  uploadFile(folder: string, source: UploadSource, options?: PdsCallOptions): Promise<AssetFolderLink[]>;
  /** `POST /v1/assetFolders/_uploadArchive{path}`: expands one ZIP (streamed) into the folder. */
  uploadArchive(folder: string, source: UploadSource, options?: PdsCallOptions): Promise<AssetFolderLink[]>;
}

/**
 * The segments of an asset-folder path: leading, trailing and doubled `/` are dropped.
 *
 * @throws PdsInvalidRequestError for a path that is not a string or holds a `.` or `..` segment
 * @example
 * ```ts
 * assetPathSegments('/images//logos/'); // ['images', 'logos']
 * assetPathSegments('/');               // [] (the root)
 * ```
 */
export function assetPathSegments(path: string, line: PdsRequestLine): string[] {
  if (typeof path !== 'string') {
    throw new PdsInvalidRequestError(`the path must be a string such as '/images/logo.png'`, line);
  }
  const segments = path.split('/').filter((segment) => segment !== '');
  const dots = segments.find((segment) => segment === '.' || segment === '..');
  if (dots !== undefined) {
    throw new PdsInvalidRequestError(
      `the path '${path}' holds a '${dots}' segment; asset folder paths do not resolve '.' or '..', give the full path from the root`,
      line,
    );
  }
  return segments;
}

/**
 * A path in its normal written form: `/a/b`, `/` for the root.
 *
 * @example
 * ```ts
 * normaliseAssetPath('images//logos/'); // '/images/logos'
 * ```
 */
export function normaliseAssetPath(path: string, line: PdsRequestLine): string {
  return `/${assetPathSegments(path, line).join('/')}`;
}

/**
 * The `{path}` part of a URL: `''` for the root, otherwise `/` + each segment percent-encoded.
 *
 * @example
 * ```ts
 * encodeAssetPath('/a b/c#1.pdf', line); // '/a%20b/c%231.pdf'
 * ```
 */
export function encodeAssetPath(path: string, line: PdsRequestLine): string {
  return assetPathSegments(path, line)
    .map((segment) => `/${encodePathSegment(segment, line)}`)
    .join('');
}

/**
 * {@link AssetFolderOperations} over a {@link PdsTransport}.
 *
 * @example
 * ```ts
 * const folders = new PdsAssetFolders(transport);
 * const listing = await folders.list('/images');
 * if (!listing.notModified) for (const link of listing.value) show(link.linkType, link.name);
 * ```
 */
export class PdsAssetFolders implements AssetFolderOperations {
  readonly #transport: PdsTransport;

  constructor(transport: PdsTransport) {
    this.#transport = transport;
  }

  async list(path: string, options: AssetFolderListOptions = {}): Promise<PdsConditional<AssetFolderLink[]>> {
    const line = { method: 'GET', path: `${BASE}{path}` };
    const ifNoneMatch = optionalEtag(options.ifNoneMatch, 'ifNoneMatch', line);
    const response = await this.#transport.request({
      method: 'GET',
      path: BASE + bareOperationPath(path, line),
      query: { allowCaching: options.allowCaching },
      headers: { accept: JSON_ACCEPT, ...(ifNoneMatch !== undefined && { 'if-none-match': ifNoneMatch }) },
      acceptNotModified: ifNoneMatch !== undefined,
      expect: 'json',
      signal: options.signal,
    });
    return conditionalAnswer(response, ifNoneMatch, schemasV1.assetFolderLinks);
  }

  async download(path: string, options: AssetFolderDownloadOptions = {}): Promise<AssetDownload> {
    const line = { method: 'GET', path: `${BASE}{path}?download=true` };
    const response = await this.#transport.request({
      method: 'GET',
      path: BASE + bareOperationPath(path, line),
      query: { download: true, allowCaching: options.allowCaching },
      expect: 'stream',
      signal: options.signal,
    });
    const length = Number(headerOf(response.headers, 'content-length') ?? Number.NaN);
    const disposition = headerOf(response.headers, 'content-disposition');
    return {
      stream: response.body,
      contentType: headerOf(response.headers, 'content-type'),
      contentLength: Number.isSafeInteger(length) && length >= 0 ? length : undefined,
      fileName: disposition === undefined ? undefined : fileNameOf(disposition),
      cacheControl: headerOf(response.headers, 'cache-control'),
    };
  }

  async details(path: string, options: PdsCallOptions = {}): Promise<AssetFolderLink> {
    return this.#linkAnswer('GET', '_getDetails', path, undefined, options);
  }

  async create(path: string, options: { name?: string } & PdsCallOptions = {}): Promise<AssetFolderLink> {
    const line = { method: 'POST', path: `${BASE}{path}` };
    const target = bareOperationPath(path, line);
    if (options.name !== undefined) checkName(options.name, 'name', line);
    if (target === '' && options.name === undefined) {
      throw new PdsInvalidRequestError('the root folder always exists; name the folder to create', line);
    }
    return requestJson(
      this.#transport,
      {
        method: 'POST',
        path: BASE + target,
        headers: { accept: JSON_ACCEPT },
        json: options.name === undefined ? {} : { name: options.name },
        signal: options.signal,
      },
      schemasV1.assetFolderLink,
    );
  }

  async delete(path: string, options: PdsCallOptions = {}): Promise<void> {
    const line = { method: 'DELETE', path: `${BASE}/_delete{path}` };
    const target = encodeAssetPath(path, line);
    if (target === '') throw new PdsInvalidRequestError('the root folder cannot be deleted', line);
    await this.#transport.request({
      method: 'DELETE',
      path: `${BASE}/_delete${target}`,
      headers: { accept: JSON_ACCEPT },
      expect: 'none',
      signal: options.signal,
    });
  }

  async deleteItems(paths: readonly string[], options: PdsCallOptions = {}): Promise<void> {
    const path = `${BASE}/_deleteItems`;
    const line = { method: 'DELETE', path };
    if (!Array.isArray(paths) || paths.length === 0) {
      throw new PdsInvalidRequestError('paths must be a non-empty array of asset or folder paths', line);
    }
    const normalised = paths.map((each) => normaliseAssetPath(each, line));
    if (normalised.includes('/')) throw new PdsInvalidRequestError('the root folder cannot be deleted', line);
    await this.#transport.request({
      method: 'DELETE',
      path,
      headers: { accept: JSON_ACCEPT },
      json: { paths: normalised },
      expect: 'none',
      signal: options.signal,
    });
  }

  async moveAsset(path: string, destination: string, options: PdsCallOptions = {}): Promise<AssetFolderLink> {
    return this.#move('_moveAsset', path, destination, options);
  }

  async moveFolder(
    path: string,
    destination: string,
    options: PdsCallOptions = {},
  ): Promise<AssetFolderLink> {
    return this.#move('_moveFolder', path, destination, options);
  }

  async renameAsset(path: string, name: string, options: PdsCallOptions = {}): Promise<AssetFolderLink> {
    return this.#rename('_renameAsset', path, name, options);
  }

  async renameFolder(path: string, name: string, options: PdsCallOptions = {}): Promise<AssetFolderLink> {
    return this.#rename('_renameFolder', path, name, options);
  }

  async convertToPublicAsset(path: string, options: PdsCallOptions = {}): Promise<AssetFolderLink> {
    return this.#linkAnswer('PUT', '_convertToPublicAsset', path, {}, options);
  }

  async uploadFile(
    folder: string,
    source: UploadSource,
    options: PdsCallOptions = {},
  ): Promise<AssetFolderLink[]> {
    return this.#upload('_uploadFile', folder, source, options);
  }

  async uploadArchive(
    folder: string,
    source: UploadSource,
    options: PdsCallOptions = {},
  ): Promise<AssetFolderLink[]> {
    return this.#upload('_uploadArchive', folder, source, options);
  }

  async #move(
    operation: '_moveAsset' | '_moveFolder',
    path: string,
    destination: string,
    options: PdsCallOptions,
  ): Promise<AssetFolderLink> {
    const line = { method: 'PUT', path: `${BASE}/${operation}{path}` };
    const body = { path: normaliseAssetPath(destination, line) };
    return this.#linkAnswer('PUT', operation, path, body, options, true);
  }

  async #rename(
    operation: '_renameAsset' | '_renameFolder',
    path: string,
    name: string,
    options: PdsCallOptions,
  ): Promise<AssetFolderLink> {
    const line = { method: 'PUT', path: `${BASE}/${operation}{path}` };
    checkName(name, 'the new name', line);
    return this.#linkAnswer('PUT', operation, path, { name }, options, true);
  }

  /** One `{operation}{path}` request answered with one link; `notRoot` refuses the root before sending. */
  async #linkAnswer(
    method: 'GET' | 'PUT',
    operation: string,
    path: string,
    json: object | undefined,
    options: PdsCallOptions,
    notRoot = method === 'PUT',
  ): Promise<AssetFolderLink> {
    const line = { method, path: `${BASE}/${operation}{path}` };
    const target = encodeAssetPath(path, line);
    if (notRoot && target === '') {
      throw new PdsInvalidRequestError('the root folder cannot be moved, renamed or made public', line);
    }
    return requestJson(
      this.#transport,
      {
        method,
        path: `${BASE}/${operation}${target}`,
        headers: { accept: JSON_ACCEPT },
        ...(json !== undefined && { json }),
        signal: options.signal,
      },
      schemasV1.assetFolderLink,
    );
  }

  async #upload(
    operation: '_uploadFile' | '_uploadArchive',
    folder: string,
    source: UploadSource,
    options: PdsCallOptions,
  ): Promise<AssetFolderLink[]> {
    const line = { method: 'POST', path: `${BASE}/${operation}{path}` };
    const target = encodeAssetPath(folder, line);
    const multipart = await multipartRequest(source, line);
    return requestJson(
      this.#transport,
      {
        method: 'POST',
        path: `${BASE}/${operation}${target}`,
        headers: { ...multipart.headers, accept: JSON_ACCEPT },
        body: multipart.body,
        signal: options.signal,
      },
      schemasV1.assetFolderLinks,
    );
  }
}

/**
 * The `{path}` of the bare `/v1/assetFolders{path}` operations (list, download, create). A first segment
 * named like an operation (`_delete`, …) would reach that operation instead, so it is refused.
 */
function bareOperationPath(path: string, line: PdsRequestLine): string {
  const [first] = assetPathSegments(path, line);
  if (first !== undefined && RESERVED_ROOT_NAMES.has(first)) {
    throw new PdsInvalidRequestError(
      `'/${first}' would address the ${first} operation, not a folder; nothing directly under the root can have that name`,
      line,
    );
  }
  return encodeAssetPath(path, line);
}

function checkName(name: unknown, what: string, line: PdsRequestLine): void {
  if (typeof name !== 'string' || name === '' || name.includes('/') || name === '.' || name === '..') {
    throw new PdsInvalidRequestError(
      `${what} must be one non-empty path segment (no '/', not '.' or '..'), got '${String(name)}'`,
      line,
    );
  }
}

/**
 * The file name of a `Content-Disposition` header: the exact `filename*` (RFC 8187) when present and
 * decodable, else the quoted or plain `filename`.
 *
 * @example
 * ```ts
 * fileNameOf(`attachment; filename="a_b.pdf"; filename*=UTF-8''a%C3%A9b.pdf`); // 'aéb.pdf'
 * ```
 */
export function fileNameOf(disposition: string): string | undefined {
  const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;\s]+)/i.exec(disposition);
  if (extended?.[2] !== undefined && /^utf-8$/i.test(extended[1] ?? '')) {
    try {
      return decodeURIComponent(extended[2]);
    } catch {
      // A broken extended value falls back to the plain one.
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(disposition);
  const value = plain?.[1]?.replace(/\\(.)/g, '$1') ?? plain?.[2];
  return value === undefined || value === '' ? undefined : value;
}
