/**
 * The `/v1/datamodel` family: key retrieval by kind with its filters, the current data model (ETag,
 * If-None-Match, allowCaching), the default item of a category and the export formats.
 *
 * A caller who is not signed in gets 403 here, which surfaces as `PdsUnauthorizedError` with code
 * `FORBIDDEN` (the other families answer 401, code `UNAUTHORIZED`).
 */
import { isIntegerInRange } from '../../core/index.ts';
import { conditionalAnswer, requestJson } from '../answers.ts';
import { optionalEtag, requireText } from '../checks.ts';
import { PdsInvalidRequestError } from '../errors.ts';
import type { PdsCallOptions } from '../options.ts';
import { pathOf } from '../paths.ts';
import { parseAnswer } from '../schemas.ts';
import type { PdsConditional, PdsTransport } from '../transport.ts';
import { schemasV1 } from './schemas.ts';
import type {
  DataModel,
  DataModelRetrievalKind,
  DataModelRetrievalQuery,
  DefaultItem,
  ExportFormat,
  ExportFormatsByKey,
} from './types.ts';

const BASE = '/v1/datamodel';

/** Options of `current`. */
export interface DataModelCurrentOptions extends PdsCallOptions {
  /** The ETag of a model held by the caller: a current one answers `{ notModified: true }`. */
  ifNoneMatch?: string;
  /** Lets caches reuse the answer. */
  allowCaching?: boolean;
}

/** Options of `exportFormats`. */
export interface ExportFormatsOptions extends PdsCallOptions {
  /** Adds each format's attribute-to-column `mappings`. */
  includeExportMappings?: boolean;
}

/** The data model operations. */
export interface DataModelOperations {
  /**
   * `GET /v1/datamodel/retrieval/{kind}`: keys of categories, attributes or enum codes matching the
   * filters (combined with AND; list filters are sent as repeated parameters and match any value).
   */
  retrieve(
    kind: DataModelRetrievalKind | (string & {}),
    filters?: DataModelRetrievalQuery,
    options?: PdsCallOptions,
  ): Promise<string[]>;
  /** `GET /v1/datamodel/current`: the whole model, or `{ notModified: true }` when `ifNoneMatch` is current. */
  current(options?: DataModelCurrentOptions): Promise<PdsConditional<DataModel>>;
  /** `GET /v1/datamodel/defaultItem/{category}`: an item holding the category's default values. */
  defaultItem(category: string, options?: PdsCallOptions): Promise<DefaultItem>;
  /** `GET /v1/datamodel/exportFormats`: the export formats as an array. */
  exportFormats(options?: ExportFormatsOptions & { returnKeyValueFormat?: false }): Promise<ExportFormat[]>;
  /** `GET /v1/datamodel/exportFormats?returnKeyValueFormat=true`: the same formats keyed by `key`. */
  exportFormats(options: ExportFormatsOptions & { returnKeyValueFormat: true }): Promise<ExportFormatsByKey>;
}

/**
 * {@link DataModelOperations} over a {@link PdsTransport}.
 *
 * @example
 * ```ts
 * const dataModel = new PdsDataModel(transport);
 * const leaves = await dataModel.retrieve('categories', { leaf: true });
 * const answer = await dataModel.current({ ifNoneMatch: cachedEtag });
 * ```
 */
export class PdsDataModel implements DataModelOperations {
  readonly #transport: PdsTransport;

  constructor(transport: PdsTransport) {
    this.#transport = transport;
  }

  async retrieve(
    kind: DataModelRetrievalKind | (string & {}),
    filters: DataModelRetrievalQuery = {},
    options: PdsCallOptions = {},
  ): Promise<string[]> {
    const line = { method: 'GET', path: `${BASE}/retrieval/{kind}` };
    requireText(kind, 'kind', line);
    for (const name of ['parent', 'name', 'code'] as const) {
      const values = filters[name];
      if (values !== undefined && !(Array.isArray(values) && values.every((v) => typeof v === 'string'))) {
        throw new PdsInvalidRequestError(`${name} must be an array of strings`, line);
      }
    }
    if (filters.limit !== undefined && !isIntegerInRange(filters.limit, { min: 0 })) {
      throw new PdsInvalidRequestError(`limit must be an integer of 0 or more, got ${filters.limit}`, line);
    }
    return requestJson(
      this.#transport,
      {
        method: 'GET',
        path: pathOf`/v1/datamodel/retrieval/${kind}`,
        query: {
          q: filters.q,
          dataModel: filters.dataModel,
          extension: filters.extension,
          leaf: filters.leaf,
          parent: filters.parent,
          name: filters.name,
          code: filters.code,
          limit: filters.limit,
        },
        signal: options.signal,
      },
      schemasV1.dataModelKeys,
    );
  }

  async current(options: DataModelCurrentOptions = {}): Promise<PdsConditional<DataModel>> {
    const line = { method: 'GET', path: `${BASE}/current` };
    const ifNoneMatch = optionalEtag(options.ifNoneMatch, 'ifNoneMatch', line);
    const response = await this.#transport.request({
      method: 'GET',
      path: line.path,
      query: { allowCaching: options.allowCaching },
      ...(ifNoneMatch !== undefined && { headers: { 'if-none-match': ifNoneMatch } }),
      acceptNotModified: ifNoneMatch !== undefined,
      expect: 'json',
      signal: options.signal,
    });
    return conditionalAnswer(response, ifNoneMatch, schemasV1.dataModel);
  }

  async defaultItem(category: string, options: PdsCallOptions = {}): Promise<DefaultItem> {
    requireText(category, 'category', { method: 'GET', path: `${BASE}/defaultItem/{category}` });
    return requestJson(
      this.#transport,
      { method: 'GET', path: pathOf`/v1/datamodel/defaultItem/${category}`, signal: options.signal },
      schemasV1.defaultItem,
    );
  }

  exportFormats(options?: ExportFormatsOptions & { returnKeyValueFormat?: false }): Promise<ExportFormat[]>;
  exportFormats(options: ExportFormatsOptions & { returnKeyValueFormat: true }): Promise<ExportFormatsByKey>;
  async exportFormats(
    options: ExportFormatsOptions & { returnKeyValueFormat?: boolean } = {},
  ): Promise<ExportFormat[] | ExportFormatsByKey> {
    const keyed = options.returnKeyValueFormat === true;
    const response = await this.#transport.request({
      method: 'GET',
      path: `${BASE}/exportFormats`,
      query: {
        includeExportMappings: options.includeExportMappings,
        returnKeyValueFormat: options.returnKeyValueFormat,
      },
      expect: 'json',
      signal: options.signal,
    });
    return keyed
      ? parseAnswer(schemasV1.exportFormatsByKey, response.body, response.request)
      : parseAnswer(schemasV1.exportFormats, response.body, response.request);
  }
}
