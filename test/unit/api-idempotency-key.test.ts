import { describe, expect, it } from 'vitest';
import {
  IDEMPOTENCY_KEY_PATTERN,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  parseIdempotencyKey,
} from '../../packages/bridge/src/api/idempotency-key.ts';
import { createApi } from '../../packages/bridge/src/api/index.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';
import { bodyOf, postPublicationEvent, publicationBody } from '../helpers/apigw.ts';
import { FakePds } from '../helpers/fake-pds.ts';
import { RecordingQueue } from '../helpers/publications.ts';

const longest = 'k'.repeat(MAX_IDEMPOTENCY_KEY_LENGTH);

describe('parseIdempotencyKey', () => {
  it.each([
    ['a bare key', '8e03978e-40d5-43e8-bc93-6894a57f9324', '8e03978e-40d5-43e8-bc93-6894a57f9324'],
    [
      'a Structured Field String',
      '"8e03978e-40d5-43e8-bc93-6894a57f9324"',
      '8e03978e-40d5-43e8-bc93-6894a57f9324',
    ],
    [
      'a quoted key with spaces, a comma and escapes',
      '"order 42, \\"rush\\" \\\\ eu"',
      'order 42, "rush" \\ eu',
    ],
    ['surrounding whitespace', ' \torder-42 ', 'order-42'],
    ['the longest key, bare', longest, longest],
    ['the longest key, quoted', `"${longest}"`, longest],
  ])('reads %s', (_name, value, key) => {
    expect(parseIdempotencyKey(value)).toEqual({ ok: true, key });
    expect(new RegExp(IDEMPOTENCY_KEY_PATTERN).test(value.trim())).toBe(true);
  });

  it.each([
    ['empty', '', /is empty/],
    ['whitespace only', '  ', /is empty/],
    ['an empty string', '""', /empty string/],
    ['a key one character too long', `${longest}k`, /longer than 255/],
    ['a quoted key one character too long', `"${longest}k"`, /longer than 255/],
    ['two fields joined by API Gateway', 'order-1, order-2', /comma/],
    ['two quoted keys', '"order-1", "order-2"', /after the closing quote/],
    ['no closing quote', '"order-1', /no closing quote/],
    ['a bad escape', '"order\\n1"', /backslash/],
    ['a non-ASCII character', 'schlüssel', /not visible ASCII/],
    ['a control character inside quotes', '"a\u0001b"', /not printable ASCII/],
    ['a stray quote', 'ab"c', /quote/],
  ])('refuses %s', (_name, value, reason) => {
    const parsed = parseIdempotencyKey(value);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.reason).toMatch(reason);
  });
});

describe('POST /publications with an Idempotency-Key', () => {
  function setup() {
    const queue = new RecordingQueue();
    const store = new MemoryStateStore();
    const api = createApi({
      store,
      queue,
      pds: async () => new FakePds(),
      settings: { maxKeys: 1000, channelsCacheMs: 0, watchTtlMs: 86_400_000, auth: { mode: 'iam' } },
      version: '1.0.0',
    });
    return { api, queue, store };
  }

  it('takes a quoted key and the same key bare as one key', async () => {
    // Prepare
    const { api, queue } = setup();

    // Act
    const quoted = await api.handle(
      postPublicationEvent(publicationBody(), { idempotencyKey: '"order-42"' }),
    );
    const bare = await api.handle(postPublicationEvent(publicationBody(), { idempotencyKey: 'order-42' }));

    // Assess
    expect(quoted.statusCode).toBe(202);
    expect(bare.statusCode).toBe(202);
    expect(bodyOf(bare).publicationId).toBe(bodyOf(quoted).publicationId);
    expect(bare.headers?.['idempotent-replayed']).toBe('true');
    expect(queue.sent).toHaveLength(1);
  });

  it('answers 400 naming what is wrong with a malformed key, and records nothing', async () => {
    // Prepare
    const { api, queue, store } = setup();

    // Act
    const result = await api.handle(postPublicationEvent(publicationBody(), { idempotencyKey: 'a, b' }));

    // Assess
    expect(result.statusCode).toBe(400);
    expect(bodyOf(result)).toMatchObject({
      type: 'urn:pds-bridge:problem:invalid-header',
      detail: expect.stringMatching(/^The Idempotency-Key contains a comma/),
    });
    expect(store.size).toBe(0);
    expect(queue.attempts).toBe(0);
  });
});
