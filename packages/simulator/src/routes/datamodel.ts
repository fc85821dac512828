/**
 * The `/v1/datamodel` family: key retrieval by kind, the current model (ETag, If-None-Match,
 * allowCaching), default items and export formats. As the spec says, a caller who is not signed in gets
 * 403 here (not the 401 of the other families).
 */
import { DATA_MODEL_RETRIEVAL_KINDS, type DataModelRetrievalKind } from '@pds-bridge/bridge/pds/resources';
import { conditionalJson, etagOf } from '../caching.ts';
import { dataModelDocument, defaultItemFor, exportFormats, retrieveKeys } from '../datamodel-catalogue.ts';
import { SimulatorHttpError } from '../errors.ts';
import { booleanParam, integerParam, listParam, textParam } from '../query.ts';
import { jsonReply, type Reply } from '../reply.ts';
import type { RequestContext, Route } from '../router.ts';

const BASE = '/v1/datamodel';

/**
 * The route table of the `/v1/datamodel` family; every route answers 403 to a caller not signed in.
 *
 * @example
 * new Router([...dataModelRoutes()]);
 */
export function dataModelRoutes(): Route[] {
  // The model is fixed for the simulator's life: build the document and its ETag once.
  const model = dataModelDocument();
  const modelEtag = etagOf('datamodel', JSON.stringify(model));
  const routes: Route[] = [
    { method: 'GET', path: `${BASE}/retrieval/:kind`, handler: retrieval },
    {
      method: 'GET',
      path: `${BASE}/current`,
      handler: ({ req, query }) =>
        conditionalJson(req, model, modelEtag, booleanParam(query, 'allowCaching')),
    },
    { method: 'GET', path: `${BASE}/defaultItem/:category`, handler: defaultItem },
    { method: 'GET', path: `${BASE}/exportFormats`, handler: formats },
  ];
  return routes.map((route) => ({ ...route, signedOut: 403 }));
}

function retrieval({ params, query }: RequestContext): Reply {
  const kind = params.kind ?? '';
  if (!(DATA_MODEL_RETRIEVAL_KINDS as readonly string[]).includes(kind)) {
    throw new SimulatorHttpError(
      400,
      `Unknown kind '${kind}'; use one of ${DATA_MODEL_RETRIEVAL_KINDS.join(', ')}`,
    );
  }
  const keys = retrieveKeys(kind as DataModelRetrievalKind, {
    q: textParam(query, 'q'),
    dataModel: textParam(query, 'dataModel'),
    extension: textParam(query, 'extension'),
    leaf: booleanParam(query, 'leaf'),
    parent: listParam(query, 'parent'),
    name: listParam(query, 'name'),
    code: listParam(query, 'code'),
    limit: integerParam(query, 'limit'),
  });
  return jsonReply(200, keys);
}

function defaultItem({ params }: RequestContext): Reply {
  const category = params.category ?? '';
  const item = defaultItemFor(category);
  if (!item) {
    throw new SimulatorHttpError(
      404,
      `No category has key '${category}'; list the keys with GET ${BASE}/retrieval/categories`,
    );
  }
  return jsonReply(200, item);
}

function formats({ query }: RequestContext): Reply {
  return jsonReply(
    200,
    exportFormats({
      includeExportMappings: booleanParam(query, 'includeExportMappings'),
      returnKeyValueFormat: booleanParam(query, 'returnKeyValueFormat'),
    }),
  );
}
