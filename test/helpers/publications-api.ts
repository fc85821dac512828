/**
 * The publications API over in-memory fakes, for tests that drive `api.handle` with many requests
 * (the regression and property suites): a memory state store, a recording queue and a fake PDS.
 *
 * @example
 * ```ts
 * const { api } = publicationsApi();
 * const result = await api.handle(apiEvent({ path: '/watch', iam: true }));
 * ```
 */

import type { ApiSettings } from '../../packages/bridge/src/api/index.ts';
import { type ApiDependencies, createApi } from '../../packages/bridge/src/api/index.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';
import { FakePds } from './fake-pds.ts';
import { RecordingQueue } from './publications.ts';

const DAY = 86_400_000;

/** Settings of a deployment with IAM authorisation and the documented defaults. */
export const TEST_API_SETTINGS: ApiSettings = {
  maxKeys: 1000,
  channelsCacheMs: 60_000,
  watchTtlMs: 30 * DAY,
  auth: { mode: 'iam' },
};

export function publicationsApi(overrides: Partial<ApiDependencies> = {}) {
  const store = new MemoryStateStore();
  const queue = new RecordingQueue();
  const pds = new FakePds({
    listCommunicationChannels: async () => [{ id: 'gdsn-de', name: 'GDSN Germany', type: 'GDSN' }],
  });
  const api = createApi({
    store,
    queue,
    pds: async () => pds,
    settings: TEST_API_SETTINGS,
    version: '1.2.3',
    now: () => new Date('2026-11-20T09:15:00.000Z'),
    ...overrides,
  });
  return { api, store, queue };
}
