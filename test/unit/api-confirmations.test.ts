/**
 * The confirmation routes as a user reads them: one publication's entries with a count per state,
 * and the exception list by state, item or GTIN, paged.
 */
import { describe, expect, it } from 'vitest';
import { createApi } from '../../packages/bridge/src/api/index.ts';
import { apiEvent } from '../helpers/apigw.ts';
import {
  cic,
  publishedWithConfirmations,
  RETAILER_GLN,
  reviewReceived,
} from '../helpers/confirmation-ledger-suite.ts';
import { FakePds } from '../helpers/fake-pds.ts';
import { RecordingQueue } from '../helpers/publications.ts';

const AT = '2026-11-20T09:00:00.000Z';
const CHANNELS = ['gdsn-de', 'gdsn-nl'].map((destinationId) => ({
  destinationType: 'COMMUNICATION_CHANNEL' as const,
  destinationId,
}));

async function setup() {
  const request = {
    primaryKeys: ['00614141123452', '00614141123469'],
    destinations: [...CHANNELS, { destinationType: 'IN_PLATFORM' as const, destinationId: 'org-1' }],
  };
  const store = await publishedWithConfirmations(
    request,
    [
      reviewReceived('00614141123452', 'gdsn-de', 7, [cic('REVIEW', '00614141123452', 1)]),
      reviewReceived('00614141123469', 'gdsn-de', 8, [cic('SYNCHRONISED', '00614141123469', 1)]),
    ],
    { publishedAt: AT },
  );
  const api = createApi({
    store,
    queue: new RecordingQueue(),
    pds: async () => new FakePds(),
    settings: { maxKeys: 10, channelsCacheMs: 0, watchTtlMs: 86_400_000, auth: { mode: 'iam' } },
    version: '1.0.0',
  });
  const get = async (path: string) => {
    const answer = await api.handle(apiEvent({ path, iam: true }));
    return { status: answer.statusCode, body: JSON.parse(answer.body as string) };
  };
  return { get };
}

describe('GET /publications/{publicationId}/confirmations', () => {
  it('answers per item and recipient with the state, since when and the corrective actions, and a count per state', async () => {
    const { get } = await setup();

    const { status, body } = await get('/publications/p-1/confirmations');

    expect(status).toBe(200);
    expect(body.publicationStatus).toBe('published');
    expect(body.summary).toEqual({ AWAITING: 2, REVIEW: 1, SYNCHRONISED: 1 });
    expect(body.entries).toHaveLength(4);
    const review = body.entries.find((entry: { state: string }) => entry.state === 'REVIEW');
    expect(review).toMatchObject({
      primaryKey: '00614141123452',
      channelId: 'gdsn-de',
      recipientGln: RETAILER_GLN,
      targetMarket: '276',
      since: '2026-11-20T11:00:00.000Z',
      correctiveActions: [
        {
          statusCode: 'CIC999',
          code: 'ACTION_NEEDED',
          description: 'Net content missing.',
          expectedCorrectiveInformation: 'Correct netContent and publish again.',
        },
      ],
      publications: [{ publicationId: 'p-1', publishedAt: AT }],
    });
    expect(review.history.map((transition: { state: string }) => transition.state)).toEqual([
      'AWAITING',
      'REVIEW',
    ]);
    expect(review).not.toHaveProperty('facts');
  });
});

describe('GET /confirmations', () => {
  it('lists the exception list by state, page by page', async () => {
    const { get } = await setup();

    const first = await get('/confirmations?state=review,AWAITING&limit=2');
    const second = await get(`/confirmations?state=review,AWAITING&limit=2&cursor=${first.body.nextCursor}`);

    // Several states: state by state (in byte order of their names), each in entry-key order.
    expect(first.body.entries.map((entry: { state: string }) => entry.state)).toEqual([
      'AWAITING',
      'AWAITING',
    ]);
    expect(
      second.body.entries.map((entry: { state: string; channelId: string }) => [
        entry.state,
        entry.channelId,
      ]),
    ).toEqual([['REVIEW', 'gdsn-de']]);
    expect(second.body.nextCursor).toBeUndefined();
  });

  it('finds one item by primary key or by GTIN (any GTIN length)', async () => {
    const { get } = await setup();

    const byKey = await get('/confirmations?primaryKey=00614141123469');
    const byGtin = await get('/confirmations?gtin=614141123469');

    expect(byKey.body.entries.map((entry: { state: string }) => entry.state)).toEqual([
      'SYNCHRONISED',
      'AWAITING',
    ]);
    expect(byGtin.body.entries).toEqual(byKey.body.entries);
  });

  it('refuses a cursor it did not give', async () => {
    const { get } = await setup();

    const { status, body } = await get('/confirmations?cursor=d2F0Y2gvYQ');

    expect(status).toBe(400);
    expect(body.detail).toMatch(/cursor/);
  });

  it.each([
    ['limit=0', 'limit must be an integer from 1 to 1000'],
    ['primaryKey=', 'primaryKey must be a primary key of 1 to 512 characters'],
    [`gtin=${'0'.repeat(513)}`, 'gtin must be a GTIN of 1 to 512 characters, e.g. 00614141123452'],
    ['state=REVIEW;REJECTED', 'state must be comma-separated states, e.g. REVIEW,REJECTED,OVERDUE'],
    ['cursor=d2F0Y2gvYQ', 'cursor is not a nextCursor this API returned; start again without it'],
    ['limit=5000&gtin=', 'limit must be an integer from 1 to 1000'],
    [
      'state=REVIEW,BOGUS',
      'state BOGUS is not a state of the confirmation ledger; use one or more of ACCEPTED, AWAITING, OVERDUE, RECEIVED, REFUSED_BY_DATA_POOL, REJECTED, REVIEW, REVIEW_WARNING, SYNCHRONISED (comma-separated, any case)',
    ],
  ])('answers ?%s with 400 invalid-query saying what the value must be', async (query, detail) => {
    const { get } = await setup();

    const { status, body } = await get(`/confirmations?${query}`);

    expect(status).toBe(400);
    expect(body).toMatchObject({ type: 'urn:pds-bridge:problem:invalid-query', detail });
  });
});
