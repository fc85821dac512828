/**
 * The OpenAPI document served at GET /openapi.json against what the api handler answers: every
 * documented problem answer of every operation is provoked here, and every answer (status, content
 * type, body, declared headers) is validated against the document with a JSON Schema 2020-12
 * validator. What API Gateway answers itself is checked through the local HTTP adapter, which
 * imitates it (413, 500), and through the document's own examples (403, 429, 503).
 */

import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiDependencies, createApi } from '../../packages/bridge/src/api/index.ts';
import { EVENT_TYPES } from '../../packages/bridge/src/events/index.ts';
import {
  PdsNotFoundError,
  PdsServerError,
  PdsUnauthorizedError,
} from '../../packages/bridge/src/pds/errors.ts';
import type { PdsClient } from '../../packages/bridge/src/pds/index.ts';
import { StateStoreError } from '../../packages/bridge/src/state/errors.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';
import type { StateStore } from '../../packages/bridge/src/state/store.ts';
import {
  keepEvent,
  MemoryDeliveryQueue,
  MemorySecretStore,
  WebhookDelivery,
  WebhookError,
} from '../../packages/bridge/src/webhooks/index.ts';
import { SecretsManagerSecretStore } from '../../packages/bridge/src/webhooks/secretsmanager/store.ts';
import { startHttpAdapter } from '../../packages/local/src/gateway/index.ts';
import { type ApiEventOptions, apiEvent, postPublicationEvent, publicationBody } from '../helpers/apigw.ts';
import { cic, publishedWithConfirmations, reviewReceived } from '../helpers/confirmation-ledger-suite.ts';
import { FakePds } from '../helpers/fake-pds.ts';
import { RecordingQueue } from '../helpers/publications.ts';
import { dropEvent } from './../helpers/webhook-events.ts';

type Json = Record<string, unknown>;

interface Operation {
  parameters?: Array<{ name: string; schema: Json }>;
  responses: Record<
    string,
    {
      content?: Record<string, { schema: Json; example?: unknown }>;
      headers?: Record<string, { schema: Json }>;
    }
  >;
}

const SETTINGS: ApiDependencies['settings'] = {
  maxKeys: 5,
  channelsCacheMs: 0,
  watchTtlMs: 86_400_000,
  auth: { mode: 'iam' },
};

/** A store whose every call fails with `error`. */
function failingStore(error: () => Error): StateStore {
  const store = new MemoryStateStore();
  return new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (property === 'list' || property === 'listEntries') {
        return () => ({
          [Symbol.asyncIterator]: () => ({
            next: () => Promise.reject(error()),
          }),
        });
      }
      return () => Promise.reject(error());
    },
  });
}
const storeDown = () =>
  failingStore(() => new StateStoreError('x.json', 'S3 is unavailable (simulated)', true));
const storeBroken = () => failingStore(() => new Error('a bug (simulated)'));

const pdsWith = (operations: Partial<PdsClient>) => new FakePds(operations);
const pdsDown = () =>
  pdsWith({
    listCommunicationChannels: async () => {
      throw new PdsServerError(503, { method: 'GET', path: '/api/v1/communicationchannels' }, '');
    },
    validate: async () => {
      throw new PdsServerError(503, { method: 'POST', path: '/api/v1/validate' }, '');
    },
  });
const pdsRefusing = () =>
  pdsWith({
    listCommunicationChannels: async () => {
      throw new PdsUnauthorizedError(401, { method: 'GET', path: '/api/v1/communicationchannels' }, '');
    },
    validate: async () => {
      throw new PdsUnauthorizedError(401, { method: 'POST', path: '/api/v1/validate' }, '');
    },
  });
const pdsBroken = () =>
  pdsWith({
    listCommunicationChannels: async () => {
      throw new Error('a bug (simulated)');
    },
    validate: async () => {
      throw new Error('a bug (simulated)');
    },
  });
const pdsWorking = () =>
  pdsWith({
    listCommunicationChannels: async () => [{ id: 'gdsn-de', name: 'GDSN Germany' }],
    validate: async () => ({ validations: {}, attributeStates: {}, calculations: {} }),
    listSupplierReviews: async (primaryKey) => {
      if (primaryKey === 'unknown') {
        throw new PdsNotFoundError(404, { method: 'GET', path: '/api/v1/supplierreviews/unknown' }, '');
      }
      return [];
    },
  });

function build(overrides: Partial<ApiDependencies> = {}) {
  const queue = new RecordingQueue();
  const api = createApi({
    store: new MemoryStateStore(),
    queue,
    pds: async () => pdsWorking(),
    settings: SETTINGS,
    version: '1.0.0',
    ...overrides,
  });
  return { api, queue };
}

const call = (options: ApiEventOptions, overrides: Partial<ApiDependencies> = {}) =>
  build(overrides).api.handle(apiEvent({ iam: true, ...options }));

const post = (path: string, json: unknown, overrides: Partial<ApiDependencies> = {}, headers = {}) =>
  call({ method: 'POST', path, json, headers }, overrides);

const ITEM = { newItem: { primaryKey__: '04012345678901' } };

/** A store with publication p-1 published to two channels; one recipient asked for corrections. */
async function confirmedStore(): Promise<StateStore> {
  const request = {
    primaryKeys: ['00614141123452', '00614141123469'],
    destinations: [
      { destinationType: 'COMMUNICATION_CHANNEL' as const, destinationId: 'gdsn-de' },
      { destinationType: 'COMMUNICATION_CHANNEL' as const, destinationId: 'gdsn-nl' },
    ],
  };
  return publishedWithConfirmations(
    request,
    [
      reviewReceived('00614141123452', 'gdsn-de', 7, [cic('REVIEW', '00614141123452', 1)]),
      reviewReceived('00614141123469', 'gdsn-de', 8, [cic('SYNCHRONISED', '00614141123469', 1)]),
    ],
    { publishedAt: '2026-11-20T09:00:00.000Z' },
  );
}

/** One request and the operation (method and path template) the document describes it under. */
interface Case {
  name: string;
  operation: string;
  answer: () => Promise<APIGatewayProxyStructuredResultV2>;
}

const UNKNOWN_ENDPOINT = '/webhooks/endpoints/ep_000000000000000000000000';

const CASES: Case[] = [
  // POST /publications
  {
    name: '202 accepted',
    operation: 'POST /publications',
    answer: () => post('/publications', publicationBody()),
  },
  {
    name: '202 replayed',
    operation: 'POST /publications',
    answer: async () => {
      const { api } = build();
      await api.handle(postPublicationEvent(publicationBody(), { idempotencyKey: '"k-1"' }));
      return api.handle(postPublicationEvent(publicationBody(), { idempotencyKey: '"k-1"' }));
    },
  },
  {
    name: '400 invalid-json',
    operation: 'POST /publications',
    answer: () =>
      call({
        method: 'POST',
        path: '/publications',
        body: '{"primaryKeys":',
        headers: { 'content-type': 'application/json' },
      }),
  },
  {
    name: '400 invalid-header',
    operation: 'POST /publications',
    answer: () => post('/publications', publicationBody(), {}, { 'idempotency-key': '"a", "b"' }),
  },
  {
    name: '400 invalid-query',
    operation: 'POST /publications',
    answer: () => call({ method: 'POST', path: '/publications?channelCheck=no', json: publicationBody() }),
  },
  {
    name: '401 unauthorized',
    operation: 'POST /publications',
    answer: () => call({ method: 'POST', path: '/publications', json: publicationBody(), iam: false }),
  },
  {
    name: '409 request-in-progress',
    operation: 'POST /publications',
    answer: async () => {
      const store = new MemoryStateStore();
      const slow = build({ store });
      slow.queue.hold(new Promise(() => {}));
      void slow.api.handle(postPublicationEvent(publicationBody(), { idempotencyKey: 'busy' }));
      await new Promise((resolve) => setTimeout(resolve, 10));
      const { api } = build({ store, idempotency: { inProgressWaitMs: 0 } });
      return api.handle(postPublicationEvent(publicationBody(), { idempotencyKey: 'busy' }));
    },
  },
  {
    name: '415 unsupported-media-type',
    operation: 'POST /publications',
    answer: () =>
      call({
        method: 'POST',
        path: '/publications',
        body: 'a=b',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
  },
  {
    name: '422 validation-failed',
    operation: 'POST /publications',
    answer: () => post('/publications', { primaryKeys: ['1', '1'], destinations: [], extra: true }),
  },
  {
    name: '422 idempotency-key-reused',
    operation: 'POST /publications',
    answer: async () => {
      const { api } = build();
      await api.handle(postPublicationEvent(publicationBody(['1']), { idempotencyKey: 'k-2' }));
      return api.handle(postPublicationEvent(publicationBody(['2']), { idempotencyKey: 'k-2' }));
    },
  },
  {
    name: '422 validation-failed (unknown channel)',
    operation: 'POST /publications',
    answer: () =>
      post('/publications', {
        primaryKeys: ['1'],
        destinations: [{ destinationType: 'COMMUNICATION_CHANNEL', destinationId: 'no-such-channel' }],
      }),
  },
  {
    name: '500 internal-error',
    operation: 'POST /publications',
    answer: () => post('/publications', publicationBody(), { store: storeBroken() }),
  },
  {
    name: '502 pds-error (channel list)',
    operation: 'POST /publications',
    answer: () => post('/publications', publicationBody(), { pds: async () => pdsRefusing() }),
  },
  {
    name: '503 pds-unavailable (channel list)',
    operation: 'POST /publications',
    answer: () => post('/publications', publicationBody(), { pds: async () => pdsDown() }),
  },
  {
    name: '503 service-unavailable (queue)',
    operation: 'POST /publications',
    answer: async () => {
      const { api, queue } = build();
      queue.failNext(1);
      return api.handle(postPublicationEvent(publicationBody(), { idempotencyKey: 'k-3' }));
    },
  },
  // GET /publications/{publicationId}
  {
    name: '200',
    operation: 'GET /publications/{publicationId}',
    answer: async () => {
      const { api } = build();
      const created = await api.handle(postPublicationEvent(publicationBody()));
      return api.handle(apiEvent({ path: created.headers?.location as string, iam: true }));
    },
  },
  {
    name: '400 invalid-path',
    operation: 'GET /publications/{publicationId}',
    answer: () => call({ path: '/publications/%E0%A4%A' }),
  },
  {
    name: '401 unauthorized',
    operation: 'GET /publications/{publicationId}',
    answer: () => call({ path: '/publications/x', iam: false }),
  },
  {
    name: '404 not-found',
    operation: 'GET /publications/{publicationId}',
    answer: () => call({ path: '/publications/nope' }),
  },
  {
    name: '500 internal-error',
    operation: 'GET /publications/{publicationId}',
    answer: () => call({ path: '/publications/x' }, { store: storeBroken() }),
  },
  {
    name: '503 service-unavailable',
    operation: 'GET /publications/{publicationId}',
    answer: () => call({ path: '/publications/x' }, { store: storeDown() }),
  },
  // GET /communication-channels
  {
    name: '200',
    operation: 'GET /communication-channels',
    answer: () => call({ path: '/communication-channels' }),
  },
  {
    name: '401 unauthorized',
    operation: 'GET /communication-channels',
    answer: () => call({ path: '/communication-channels', iam: false }),
  },
  {
    name: '500 internal-error',
    operation: 'GET /communication-channels',
    answer: () => call({ path: '/communication-channels' }, { pds: async () => pdsBroken() }),
  },
  {
    name: '502 pds-error',
    operation: 'GET /communication-channels',
    answer: () => call({ path: '/communication-channels' }, { pds: async () => pdsRefusing() }),
  },
  {
    name: '503 pds-unavailable',
    operation: 'GET /communication-channels',
    answer: () => call({ path: '/communication-channels' }, { pds: async () => pdsDown() }),
  },
  // POST /validations
  { name: '200', operation: 'POST /validations', answer: () => post('/validations', ITEM) },
  {
    name: '400 invalid-json',
    operation: 'POST /validations',
    answer: () =>
      call({
        method: 'POST',
        path: '/validations',
        body: ' ',
        headers: { 'content-type': 'application/json' },
      }),
  },
  {
    name: '401 unauthorized',
    operation: 'POST /validations',
    answer: () => call({ method: 'POST', path: '/validations', json: ITEM, iam: false }),
  },
  {
    name: '415 unsupported-media-type',
    operation: 'POST /validations',
    answer: () =>
      call({ method: 'POST', path: '/validations', body: '{}', headers: { 'content-type': 'text/plain' } }),
  },
  {
    name: '422 validation-failed',
    operation: 'POST /validations',
    answer: () => post('/validations', { oldItem: {} }),
  },
  {
    name: '500 internal-error',
    operation: 'POST /validations',
    answer: () => post('/validations', ITEM, { pds: async () => pdsBroken() }),
  },
  {
    name: '502 pds-error',
    operation: 'POST /validations',
    answer: () => post('/validations', ITEM, { pds: async () => pdsRefusing() }),
  },
  {
    name: '503 pds-unavailable',
    operation: 'POST /validations',
    answer: () => post('/validations', ITEM, { pds: async () => pdsDown() }),
  },
  // GET /publications/{publicationId}/confirmations
  {
    name: '200',
    operation: 'GET /publications/{publicationId}/confirmations',
    answer: async () => call({ path: '/publications/p-1/confirmations' }, { store: await confirmedStore() }),
  },
  {
    name: '400 invalid-path',
    operation: 'GET /publications/{publicationId}/confirmations',
    answer: () => call({ path: '/publications/%ZZ/confirmations' }),
  },
  {
    name: '401 unauthorized',
    operation: 'GET /publications/{publicationId}/confirmations',
    answer: () => call({ path: '/publications/p-1/confirmations', iam: false }),
  },
  {
    name: '404 not-found',
    operation: 'GET /publications/{publicationId}/confirmations',
    answer: () => call({ path: '/publications/p-404/confirmations' }),
  },
  {
    name: '500 internal-error',
    operation: 'GET /publications/{publicationId}/confirmations',
    answer: () => call({ path: '/publications/p-1/confirmations' }, { store: storeBroken() }),
  },
  {
    name: '503 service-unavailable',
    operation: 'GET /publications/{publicationId}/confirmations',
    answer: () => call({ path: '/publications/p-1/confirmations' }, { store: storeDown() }),
  },
  // GET /confirmations
  {
    name: '200',
    operation: 'GET /confirmations',
    answer: async () =>
      call({ path: '/confirmations?state=REVIEW,AWAITING&limit=2' }, { store: await confirmedStore() }),
  },
  {
    name: '400 invalid-query',
    operation: 'GET /confirmations',
    answer: () => call({ path: '/confirmations?state=REVIEW;DROP' }),
  },
  {
    name: '401 unauthorized',
    operation: 'GET /confirmations',
    answer: () => call({ path: '/confirmations', iam: false }),
  },
  {
    name: '500 internal-error',
    operation: 'GET /confirmations',
    answer: () => call({ path: '/confirmations' }, { store: storeBroken() }),
  },
  {
    name: '503 service-unavailable',
    operation: 'GET /confirmations',
    answer: () => call({ path: '/confirmations' }, { store: storeDown() }),
  },
  // GET /confirmations/recipients
  {
    name: '200',
    operation: 'GET /confirmations/recipients',
    answer: async () =>
      call({ path: '/confirmations/recipients?days=3&limit=1' }, { store: await confirmedStore() }),
  },
  {
    name: '400 invalid-query',
    operation: 'GET /confirmations/recipients',
    answer: () => call({ path: '/confirmations/recipients?days=91' }),
  },
  {
    name: '401 unauthorized',
    operation: 'GET /confirmations/recipients',
    answer: () => call({ path: '/confirmations/recipients', iam: false }),
  },
  {
    name: '500 internal-error',
    operation: 'GET /confirmations/recipients',
    answer: () => call({ path: '/confirmations/recipients' }, { store: storeBroken() }),
  },
  {
    name: '503 service-unavailable',
    operation: 'GET /confirmations/recipients',
    answer: () => call({ path: '/confirmations/recipients' }, { store: storeDown() }),
  },
  // GET /confirmations/recipients/{channelId}/{recipient}
  {
    name: '200',
    operation: 'GET /confirmations/recipients/{channelId}/{recipient}',
    answer: async () =>
      call({ path: '/confirmations/recipients/gdsn-de/_?days=2' }, { store: await confirmedStore() }),
  },
  {
    name: '400 invalid-path',
    operation: 'GET /confirmations/recipients/{channelId}/{recipient}',
    answer: () => call({ path: '/confirmations/recipients/gdsn-de/%ZZ' }),
  },
  {
    name: '400 invalid-query',
    operation: 'GET /confirmations/recipients/{channelId}/{recipient}',
    answer: () => call({ path: '/confirmations/recipients/gdsn-de/_?days=0' }),
  },
  {
    name: '401 unauthorized',
    operation: 'GET /confirmations/recipients/{channelId}/{recipient}',
    answer: () => call({ path: '/confirmations/recipients/gdsn-de/_', iam: false }),
  },
  {
    name: '404 not-found',
    operation: 'GET /confirmations/recipients/{channelId}/{recipient}',
    answer: () => call({ path: '/confirmations/recipients/gdsn-de/_' }),
  },
  {
    name: '500 internal-error',
    operation: 'GET /confirmations/recipients/{channelId}/{recipient}',
    answer: () => call({ path: '/confirmations/recipients/gdsn-de/_' }, { store: storeBroken() }),
  },
  {
    name: '503 service-unavailable',
    operation: 'GET /confirmations/recipients/{channelId}/{recipient}',
    answer: () => call({ path: '/confirmations/recipients/gdsn-de/_' }, { store: storeDown() }),
  },
  // GET /watch
  { name: '200', operation: 'GET /watch', answer: () => call({ path: '/watch?limit=2' }) },
  { name: '400 invalid-query', operation: 'GET /watch', answer: () => call({ path: '/watch?limit=0' }) },
  { name: '401 unauthorized', operation: 'GET /watch', answer: () => call({ path: '/watch', iam: false }) },
  {
    name: '500 internal-error',
    operation: 'GET /watch',
    answer: () => call({ path: '/watch' }, { store: storeBroken() }),
  },
  {
    name: '503 service-unavailable',
    operation: 'GET /watch',
    answer: () => call({ path: '/watch' }, { store: storeDown() }),
  },
  // GET /watch/{primaryKey}
  {
    name: '200',
    operation: 'GET /watch/{primaryKey}',
    answer: async () => {
      const { api } = build();
      await api.handle(apiEvent({ method: 'PUT', path: '/watch/0401', iam: true }));
      return api.handle(apiEvent({ path: '/watch/0401', iam: true }));
    },
  },
  {
    name: '400 invalid-path',
    operation: 'GET /watch/{primaryKey}',
    answer: () => call({ path: `/watch/${'k'.repeat(513)}` }),
  },
  {
    name: '401 unauthorized',
    operation: 'GET /watch/{primaryKey}',
    answer: () => call({ path: '/watch/0401', iam: false }),
  },
  {
    name: '404 not-found',
    operation: 'GET /watch/{primaryKey}',
    answer: () => call({ path: '/watch/0401' }),
  },
  {
    name: '500 internal-error',
    operation: 'GET /watch/{primaryKey}',
    answer: () => call({ path: '/watch/0401' }, { store: storeBroken() }),
  },
  {
    name: '503 service-unavailable',
    operation: 'GET /watch/{primaryKey}',
    answer: () => call({ path: '/watch/0401' }, { store: storeDown() }),
  },
  // PUT /watch/{primaryKey}
  {
    name: '201',
    operation: 'PUT /watch/{primaryKey}',
    answer: () => call({ method: 'PUT', path: '/watch/0401' }),
  },
  {
    name: '200',
    operation: 'PUT /watch/{primaryKey}',
    answer: async () => {
      let clock = Date.parse('2026-11-20T09:15:00.000Z');
      const { api } = build({ now: () => new Date(clock) });
      await api.handle(apiEvent({ method: 'PUT', path: '/watch/0401', iam: true }));
      clock += 1000;
      return api.handle(apiEvent({ method: 'PUT', path: '/watch/0401', iam: true }));
    },
  },
  {
    name: '400 invalid-path',
    operation: 'PUT /watch/{primaryKey}',
    answer: () => call({ method: 'PUT', path: '/watch/%ZZ' }),
  },
  {
    name: '400 invalid-query',
    operation: 'PUT /watch/{primaryKey}',
    answer: () => call({ method: 'PUT', path: '/watch/0401?force=yes' }),
  },
  {
    name: '422 unknown-item',
    operation: 'PUT /watch/{primaryKey}',
    answer: () => call({ method: 'PUT', path: '/watch/unknown' }),
  },
  {
    name: '502 pds-error',
    operation: 'PUT /watch/{primaryKey}',
    answer: () =>
      call(
        { method: 'PUT', path: '/watch/0401' },
        {
          pds: async () =>
            pdsWith({
              listSupplierReviews: async () => {
                throw new PdsUnauthorizedError(
                  401,
                  { method: 'GET', path: '/api/v1/supplierreviews/0401' },
                  '',
                );
              },
            }),
        },
      ),
  },
  {
    name: '503 pds-unavailable',
    operation: 'PUT /watch/{primaryKey}',
    answer: () =>
      call(
        { method: 'PUT', path: '/watch/0401' },
        {
          pds: async () =>
            pdsWith({
              listSupplierReviews: async () => {
                throw new PdsServerError(503, { method: 'GET', path: '/api/v1/supplierreviews/0401' }, '');
              },
            }),
        },
      ),
  },
  {
    name: '401 unauthorized',
    operation: 'PUT /watch/{primaryKey}',
    answer: () => call({ method: 'PUT', path: '/watch/0401', iam: false }),
  },
  {
    name: '500 internal-error',
    operation: 'PUT /watch/{primaryKey}',
    answer: () => call({ method: 'PUT', path: '/watch/0401' }, { store: storeBroken() }),
  },
  {
    name: '503 service-unavailable',
    operation: 'PUT /watch/{primaryKey}',
    answer: () => call({ method: 'PUT', path: '/watch/0401' }, { store: storeDown() }),
  },
  // DELETE /watch/{primaryKey}
  {
    name: '204',
    operation: 'DELETE /watch/{primaryKey}',
    answer: async () => {
      const { api } = build();
      await api.handle(apiEvent({ method: 'PUT', path: '/watch/0401', iam: true }));
      return api.handle(apiEvent({ method: 'DELETE', path: '/watch/0401', iam: true }));
    },
  },
  {
    name: '400 invalid-path',
    operation: 'DELETE /watch/{primaryKey}',
    answer: () => call({ method: 'DELETE', path: '/watch/%ZZ' }),
  },
  {
    name: '401 unauthorized',
    operation: 'DELETE /watch/{primaryKey}',
    answer: () => call({ method: 'DELETE', path: '/watch/0401', iam: false }),
  },
  {
    name: '404 not-found',
    operation: 'DELETE /watch/{primaryKey}',
    answer: () => call({ method: 'DELETE', path: '/watch/0401' }),
  },
  {
    name: '500 internal-error',
    operation: 'DELETE /watch/{primaryKey}',
    answer: () => call({ method: 'DELETE', path: '/watch/0401' }, { store: storeBroken() }),
  },
  {
    name: '503 service-unavailable',
    operation: 'DELETE /watch/{primaryKey}',
    answer: () => call({ method: 'DELETE', path: '/watch/0401' }, { store: storeDown() }),
  },
  // GET /openapi.json and GET /health
  { name: '200', operation: 'GET /openapi.json', answer: () => call({ path: '/openapi.json' }) },
  {
    name: '401 unauthorized',
    operation: 'GET /openapi.json',
    answer: () => call({ path: '/openapi.json', iam: false }),
  },
  { name: '200', operation: 'GET /health', answer: () => call({ path: '/health', iam: false }) },
  // GET /health/pds: the PDS is asked every time (no cache), with the function's own client
  { name: '200', operation: 'GET /health/pds', answer: () => call({ path: '/health/pds' }) },
  {
    name: '401 unauthorized',
    operation: 'GET /health/pds',
    answer: () => call({ path: '/health/pds', iam: false }),
  },
  {
    name: '500 internal-error',
    operation: 'GET /health/pds',
    answer: () => call({ path: '/health/pds' }, { pds: async () => pdsBroken() }),
  },
  {
    name: '502 pds-error',
    operation: 'GET /health/pds',
    answer: () => call({ path: '/health/pds' }, { pds: async () => pdsRefusing() }),
  },
  {
    name: '503 pds-unavailable',
    operation: 'GET /health/pds',
    answer: () => call({ path: '/health/pds' }, { pds: async () => pdsDown() }),
  },
  ...webhookCases(),
];

/** Webhook delivery on `store`, with every URL allowed (the receiver would be on 127.0.0.1). */
function webhooksOn(store: StateStore = new MemoryStateStore()): Partial<ApiDependencies> {
  const webhooks = new WebhookDelivery({
    store,
    secrets: new MemorySecretStore(),
    queue: new MemoryDeliveryQueue(),
    policy: 'any',
    knownTypes: EVENT_TYPES,
  });
  return { store, webhooks };
}

/** Overrides with one registered endpoint, and its path. */
async function registeredEndpoint(): Promise<{ overrides: Partial<ApiDependencies>; path: string }> {
  const overrides = webhooksOn();
  const { endpoint } = await (overrides.webhooks as WebhookDelivery).registry.create({
    url: 'http://127.0.0.1:9/hook',
  });
  return { overrides, path: `/webhooks/endpoints/${endpoint.id}` };
}

/** The cases every webhook operation shares: 401, 500 (a broken store), 503 (not configured). */
function webhookCommonCases(operation: string, method: string, path: string, json?: unknown): Case[] {
  const request = { method, path, ...(json === undefined ? {} : { json }) };
  return [
    { name: '401 unauthorized', operation, answer: () => call({ ...request, iam: false }) },
    { name: '500 internal-error', operation, answer: () => call(request, webhooksOn(storeBroken())) },
    { name: '503 service-unavailable', operation, answer: () => call(request) },
  ];
}

/** The body cases of a webhook operation that takes JSON: 400, 415, 422. */
function webhookBodyCases(
  operation: string,
  method: string,
  path: () => Promise<{ overrides: Partial<ApiDependencies>; path: string }>,
  invalid: unknown,
): Case[] {
  return [
    {
      name: '400 invalid-json',
      operation,
      answer: async () => {
        const target = await path();
        return call(
          { method, path: target.path, body: '{"url":', headers: { 'content-type': 'application/json' } },
          target.overrides,
        );
      },
    },
    {
      name: '415 unsupported-media-type',
      operation,
      answer: async () => {
        const target = await path();
        return call(
          {
            method,
            path: target.path,
            body: 'a=b',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
          },
          target.overrides,
        );
      },
    },
    {
      name: '422 validation-failed',
      operation,
      answer: async () => {
        const target = await path();
        return call({ method, path: target.path, json: invalid }, target.overrides);
      },
    },
  ];
}

function webhookCases(): Case[] {
  const collection = async () => ({ overrides: webhooksOn(), path: '/webhooks/endpoints' });
  const one = (operation: string, method: string, suffix: string, json?: unknown): Case[] => [
    {
      name: '404 not-found',
      operation,
      answer: () =>
        call(
          { method, path: `${UNKNOWN_ENDPOINT}${suffix}`, ...(json === undefined ? {} : { json }) },
          webhooksOn(),
        ),
    },
    ...webhookCommonCases(operation, method, `${UNKNOWN_ENDPOINT}${suffix}`, json),
  ];
  const withEndpoint = (suffix: string) => async () => {
    const target = await registeredEndpoint();
    return { overrides: target.overrides, path: `${target.path}${suffix}` };
  };
  const answerOn =
    (method: string, suffix: string, json?: unknown, query = '') =>
    async () => {
      const target = await withEndpoint(suffix)();
      return call(
        { method, path: `${target.path}${query}`, ...(json === undefined ? {} : { json }) },
        target.overrides,
      );
    };
  return [
    {
      name: '201',
      operation: 'POST /webhooks/endpoints',
      answer: () =>
        post(
          '/webhooks/endpoints',
          { url: 'http://127.0.0.1:9/hook', eventTypes: ['pds.ingest.failed'] },
          webhooksOn(),
        ),
    },
    ...webhookBodyCases('POST /webhooks/endpoints', 'POST', collection, {
      url: 'http://127.0.0.1:9/',
      eventTypes: ['pds.nope'],
    }),
    ...webhookCommonCases('POST /webhooks/endpoints', 'POST', '/webhooks/endpoints', {
      url: 'http://127.0.0.1:9/',
    }),
    {
      name: '200',
      operation: 'GET /webhooks/endpoints',
      answer: async () => call({ path: '/webhooks/endpoints' }, (await registeredEndpoint()).overrides),
    },
    ...webhookCommonCases('GET /webhooks/endpoints', 'GET', '/webhooks/endpoints'),
    { name: '200', operation: 'GET /webhooks/endpoints/{endpointId}', answer: answerOn('GET', '') },
    ...one('GET /webhooks/endpoints/{endpointId}', 'GET', ''),
    {
      name: '200',
      operation: 'PUT /webhooks/endpoints/{endpointId}',
      answer: answerOn('PUT', '', { description: 'ERP' }),
    },
    ...webhookBodyCases('PUT /webhooks/endpoints/{endpointId}', 'PUT', withEndpoint(''), { url: 'ftp://x/' }),
    ...one('PUT /webhooks/endpoints/{endpointId}', 'PUT', '', { description: 'ERP' }),
    { name: '204', operation: 'DELETE /webhooks/endpoints/{endpointId}', answer: answerOn('DELETE', '') },
    ...one('DELETE /webhooks/endpoints/{endpointId}', 'DELETE', ''),
    {
      name: '200',
      operation: 'POST /webhooks/endpoints/{endpointId}/disable',
      answer: answerOn('POST', '/disable'),
    },
    ...one('POST /webhooks/endpoints/{endpointId}/disable', 'POST', '/disable'),
    {
      name: '200',
      operation: 'POST /webhooks/endpoints/{endpointId}/enable',
      answer: answerOn('POST', '/enable'),
    },
    ...one('POST /webhooks/endpoints/{endpointId}/enable', 'POST', '/enable'),
    {
      name: '200',
      operation: 'POST /webhooks/endpoints/{endpointId}/rotate',
      answer: answerOn('POST', '/rotate'),
    },
    ...one('POST /webhooks/endpoints/{endpointId}/rotate', 'POST', '/rotate'),
    {
      name: '200',
      operation: 'GET /webhooks/endpoints/{endpointId}/deliveries',
      answer: answerOn('GET', '/deliveries', undefined, '?status=failed&limit=5'),
    },
    {
      name: '400 invalid-query',
      operation: 'GET /webhooks/endpoints/{endpointId}/deliveries',
      answer: answerOn('GET', '/deliveries', undefined, '?status=lost'),
    },
    ...one('GET /webhooks/endpoints/{endpointId}/deliveries', 'GET', '/deliveries'),
    {
      name: '202',
      operation: 'POST /webhooks/endpoints/{endpointId}/replay',
      // Within the delivery log's retention (30 days) whenever the suite runs.
      answer: answerOn('POST', '/replay', { since: new Date(Date.now() - 86_400_000).toISOString() }),
    },
    ...webhookBodyCases('POST /webhooks/endpoints/{endpointId}/replay', 'POST', withEndpoint('/replay'), {
      eventIds: ['never-kept'],
    }),
    ...one('POST /webhooks/endpoints/{endpointId}/replay', 'POST', '/replay', { eventIds: ['e-1'] }),
    {
      name: '200',
      operation: 'GET /webhooks/public-key',
      answer: () => call({ path: '/webhooks/public-key' }, webhooksOn()),
    },
    ...webhookCommonCases('GET /webhooks/public-key', 'GET', '/webhooks/public-key'),
  ];
}

/**
 * Documented problem answers no request can provoke: these routes do no I/O, so they have no
 * unexpected failure to turn into a 500 (the document keeps it: a bug could still cause one).
 */
const UNPROVOKABLE = new Set(['GET /openapi.json 500 internal-error', 'GET /health 500 internal-error']);

const { api: documentApi } = build();
const document = JSON.parse(
  (await documentApi.handle(apiEvent({ path: '/openapi.json', iam: true }))).body as string,
) as { paths: Record<string, Record<string, Operation>> };

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema(document, 'openapi.json');

/** Compiles the schema at a place in the document, given as the list of its property names. */
function validatorAt(path: string[]) {
  const pointer = path
    .map((part) => encodeURIComponent(part.replaceAll('~', '~0').replaceAll('/', '~1')))
    .join('/');
  return ajv.compile({ $ref: `openapi.json#/${pointer}` });
}

function operationOf(name: string): { operation: Operation; path: string[] } {
  const [method = '', template = ''] = name.split(' ');
  const operation = document.paths[template]?.[method.toLowerCase()];
  if (!operation) throw new Error(`the document has no operation ${name}`);
  return { operation, path: ['paths', template, method.toLowerCase()] };
}

/** The problem types the document lists per operation and status, as `<operation> <status> <slug>`. */
function documentedProblems(): Set<string> {
  const documented = new Set<string>();
  for (const [template, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        const schema = response.content?.['application/problem+json']?.schema as
          | { allOf: [unknown, { properties: { type: { enum: string[] } } }] }
          | undefined;
        for (const type of schema?.allOf[1].properties.type.enum ?? []) {
          documented.add(`${method.toUpperCase()} ${template} ${status} ${type.split(':').at(-1)}`);
        }
      }
    }
  }
  return documented;
}

const provoked = new Set<string>();

describe('the OpenAPI document against the api handler', () => {
  it.each(CASES.map((c) => [`${c.operation}: ${c.name}`, c] as const))('documents %s', async (_name, c) => {
    // Act
    const result = await c.answer();

    // Assess: the status is documented for the operation, and so are the content type and the body
    const { operation, path } = operationOf(c.operation);
    const status = String(result.statusCode);
    expect(Object.keys(operation.responses)).toContain(status);
    const response = operation.responses[status] as NonNullable<Operation['responses'][string]>;
    const contentType = result.headers?.['content-type'] as string | undefined;
    if (result.body === undefined) {
      expect(response.content).toBeUndefined();
    } else {
      expect(Object.keys(response.content ?? {})).toContain(contentType);
      const validate = validatorAt([
        ...path,
        'responses',
        status,
        'content',
        contentType as string,
        'schema',
      ]);
      const body = JSON.parse(result.body as string);
      expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
      if (contentType === 'application/problem+json') {
        expect(body.requestId).toEqual(expect.any(String));
        provoked.add(`${c.operation} ${status} ${String(body.type).split(':').at(-1)}`);
      }
    }
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      const value = result.headers?.[name.toLowerCase()];
      if (value === undefined) continue;
      const validate = validatorAt([...path, 'responses', status, 'headers', name, 'schema']);
      expect(validate(value), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect(header.schema).toBeDefined();
    }
  });

  it('provokes every documented problem answer of every operation', () => {
    const documented = [...documentedProblems()].filter((answer) => !UNPROVOKABLE.has(answer));
    expect([...provoked].sort()).toEqual(documented.sort());
  });

  it('answers 503 with Retry-After when the webhook queue does not take a replay', async () => {
    // arrange: a kept event and a queue that refuses every task
    const store = new MemoryStateStore();
    const refusing = {
      enqueue: async () => {
        throw new WebhookError('WEBHOOK_QUEUE_FAILED', 'SQS did not accept 1 webhook task(s)', {
          retryable: true,
        });
      },
    };
    const webhooks = new WebhookDelivery({
      store,
      secrets: new MemorySecretStore(),
      queue: refusing,
      policy: 'any',
      knownTypes: EVENT_TYPES,
    });
    const { endpoint } = await webhooks.registry.create({ url: 'http://127.0.0.1:9/hook' });
    await keepEvent(store, dropEvent(1));

    // act
    const answer = await post(
      `/webhooks/endpoints/${endpoint.id}/replay`,
      { eventIds: ['evt-1'] },
      { store, webhooks },
    );

    // assess
    expect(answer.statusCode).toBe(503);
    expect(answer.headers?.['retry-after']).toBe('5');
    expect(JSON.parse(answer.body ?? '{}')).toMatchObject({
      type: expect.stringContaining('service-unavailable'),
    });
  });

  it('answers 503 with Retry-After when Secrets Manager throttles, and 500 when it refuses', async () => {
    // arrange: a Secrets Manager client that fails every call as the SDK reports such failures
    // (throttling cannot be provoked on an emulator)
    const registering = (failure: Error) =>
      post(
        '/webhooks/endpoints',
        { url: 'http://127.0.0.1:9/hook' },
        {
          ...webhooksOn(),
          webhooks: new WebhookDelivery({
            store: new MemoryStateStore(),
            secrets: new SecretsManagerSecretStore({
              client: { send: async () => Promise.reject(failure) } as never,
              prefix: 'pds-bridge/test/',
            }),
            queue: new MemoryDeliveryQueue(),
            policy: 'any',
            knownTypes: EVENT_TYPES,
          }),
        },
      );
    const sdkError = (name: string, status: number, retryable: boolean) =>
      Object.assign(new Error(`${name} (simulated)`), {
        name,
        $metadata: { httpStatusCode: status },
        ...(retryable ? { $retryable: { throttling: true } } : {}),
      });

    // act
    const throttled = await registering(sdkError('ThrottlingException', 400, true));
    const denied = await registering(sdkError('AccessDeniedException', 400, false));

    // assess
    expect(throttled.statusCode).toBe(503);
    expect(throttled.headers?.['retry-after']).toBe('5');
    expect(JSON.parse(throttled.body ?? '{}').detail).toContain('ThrottlingException (400)');
    expect(denied.statusCode).toBe(500);
  });

  it('documents the Idempotent-Replayed header of a replay', async () => {
    const replay = await (CASES.find((c) => c.name === '202 replayed') as Case).answer();
    const { operation } = operationOf('POST /publications');
    expect(replay.headers?.['idempotent-replayed']).toBe('true');
    expect(operation.responses['202']?.headers?.['Idempotent-Replayed']?.schema).toEqual({
      type: 'string',
      enum: ['true'],
    });
  });

  it('documents the recipients page size the route takes (1 to 100), and refuses 101', async () => {
    // prepare: the limit parameter the document gives GET /confirmations/recipients
    const { operation } = operationOf('GET /confirmations/recipients');
    const limit = operation.parameters?.find((parameter) => parameter.name === 'limit');

    // act
    const atMost = await call({ path: '/confirmations/recipients?limit=100' });
    const beyond = await call({ path: '/confirmations/recipients?limit=101' });

    // assess
    expect(limit?.schema).toMatchObject({ minimum: 1, maximum: 100 });
    expect(atMost.statusCode).toBe(200);
    expect(beyond.statusCode).toBe(400);
    expect(beyond.body).toContain('from 1 to 100');
  });

  it("documents every answer API Gateway gives by itself in the gateway's own shape", () => {
    for (const methods of Object.values(document.paths)) {
      for (const operation of Object.values(methods)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          const gateway = response.content?.['application/json'];
          if (Number(status) < 400 || !gateway) continue;
          expect(
            ajv.validate({ $ref: 'openapi.json#/components/schemas/GatewayMessage' }, gateway.example),
          ).toBe(true);
        }
      }
    }
  });
});

describe('what the local HTTP adapter answers in place of API Gateway', () => {
  let adapter: Awaited<ReturnType<typeof startHttpAdapter>>;
  beforeAll(async () => {
    const { api } = build();
    adapter = await startHttpAdapter({
      functionName: 'api',
      maxBodyBytes: 1024,
      handler: async (event) => {
        if (event.rawPath === '/watch/crash') throw new Error('the function crashed (simulated)');
        return api.handle(event);
      },
    });
  });
  afterAll(() => adapter.close());

  it.each([
    ['413', 'POST', '/publications', 'POST /publications', 'x'.repeat(2048)],
    ['500', 'GET', '/watch/crash', 'GET /watch/{primaryKey}', undefined],
  ])('validates its %s against the document', async (status, method, path, operationName, body) => {
    // Act
    const response = await fetch(`${adapter.url}${path}`, {
      method,
      ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }),
    });

    // Assess
    expect(String(response.status)).toBe(status);
    const contentType = response.headers.get('content-type') as string;
    const { operation, path: at } = operationOf(operationName);
    expect(Object.keys(operation.responses[status]?.content ?? {})).toContain(contentType);
    const validate = validatorAt([...at, 'responses', status, 'content', contentType, 'schema']);
    expect(validate(await response.json())).toBe(true);
  });
});
