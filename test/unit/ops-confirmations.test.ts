/**
 * `pds bridge confirmations` and `pds bridge why PUBLICATION_ID` read the confirmation ledger: rows per
 * item and recipient with the corrective actions, a count per state, the exception list by state.
 */
import { describe, expect, it } from 'vitest';
import {
  confirmationsText,
  explanationText,
  recipientSeriesText,
  recipientsText,
} from '../../packages/cli/src/commands/bridge-text.ts';
import { confirmationsOfPublication, findConfirmations } from '../../packages/cli/src/ops/confirmations.ts';
import { recipientSeries, recipientsOverview } from '../../packages/cli/src/ops/recipients.ts';
import { explain } from '../../packages/cli/src/ops/why.ts';
import { cic, publishedWithConfirmations, reviewReceived } from '../helpers/confirmation-ledger-suite.ts';

const AT = '2026-11-20T09:00:00.000Z';

async function publishedStore() {
  const request = {
    primaryKeys: ['00614141123452'],
    destinations: ['gdsn-de', 'gdsn-nl'].map((destinationId) => ({
      destinationType: 'COMMUNICATION_CHANNEL' as const,
      destinationId,
    })),
  };
  return publishedWithConfirmations(
    request,
    [
      reviewReceived('00614141123452', 'gdsn-de', 7, [cic('SYNCHRONISED', '00614141123452', 1)]),
      reviewReceived('00614141123452', 'gdsn-nl', 8, [cic('REVIEW', '00614141123452', 1)]),
    ],
    { publishedAt: AT, record: { notifiedAt: AT } },
  );
}

describe('pds bridge confirmations', () => {
  it('shows a publication per item and recipient, with a count per state and the corrective actions', async () => {
    const answer = await confirmationsOfPublication(await publishedStore(), 'p-1');

    const text = confirmationsText(answer);

    expect(answer.summary).toEqual({ SYNCHRONISED: 1, REVIEW: 1 });
    expect(text).toContain('publication p-1: PUBLISHED');
    expect(text).toContain('SYNCHRONISED 1, REVIEW 1');
    expect(text).toMatch(/00614141123452 +gdsn-nl +0614141000005 +276 +REVIEW/);
    expect(text).toContain('CIC999 ACTION_NEEDED: Net content missing.');
    expect(answer.rows.find((row) => row.state === 'REVIEW')?.correctiveActions).toEqual([
      'CIC999 ACTION_NEEDED: Net content missing. (Correct netContent and publish again.)',
    ]);
  });

  it('lists the exception list by state, and says so when a publication is unknown', async () => {
    const store = await publishedStore();

    const review = await findConfirmations(store, { states: ['REVIEW', 'REJECTED'] }, 10);
    const unknown = await confirmationsOfPublication(store, 'p-404');

    expect(review.rows.map((row) => [row.channelId, row.state])).toEqual([['gdsn-nl', 'REVIEW']]);
    expect(confirmationsText(unknown)).toContain('not found');
  });

  it('says that a FAILED publication has no entries because nothing was published, not that they come later', () => {
    const failed = {
      query: { publicationId: 'p-9' },
      publicationStatus: 'failed' as const,
      summary: {},
      rows: [],
      truncated: false,
    };
    const queued = { ...failed, publicationStatus: 'queued' as const };

    expect(confirmationsText(failed)).toBe(
      'publication p-9: FAILED\n  no entries: the publication failed, so nothing was published and no recipient was asked (pds bridge why p-9 says why)',
    );
    expect(confirmationsText(queued)).toContain('created when the publication is published');
  });
});

describe('pds bridge why PUBLICATION_ID', () => {
  it('shows the confirmations too', async () => {
    const answer = await explain(await publishedStore(), { kind: 'publication', publicationId: 'p-1' });

    const text = explanationText(answer);

    expect(text).toContain('confirmations: SYNCHRONISED 1, REVIEW 1');
    expect(text).toMatch(/gdsn-de +0614141000005 +276 +SYNCHRONISED/);
  });
});

describe('pds bridge recipients', () => {
  const now = new Date('2026-11-20T13:00:00.000Z');

  it('lists each recipient with its publications, answers and time to SYNCHRONISED over the window', async () => {
    const answer = await recipientsOverview(await publishedStore(), { days: 2, limit: 50, now });

    const text = recipientsText(answer);

    expect(answer.days).toEqual(['2026-11-19', '2026-11-20']);
    expect(answer.recipients.map((recipient) => [recipient.channelId, recipient.recipient])).toEqual([
      ['gdsn-de', '_'],
      ['gdsn-nl', '_'],
    ]);
    expect(answer.recipients[0]?.totals).toMatchObject({ published: 1, answered: 1, unansweredShare: 0 });
    // Published at 09:00, synchronised by a CIC created at 11:00.
    expect(answer.recipients[0]?.totals.synchronised).toMatchObject({ count: 1, p50Ms: 7_200_000 });
    expect(text).toMatch(/gdsn-de +_ +0614141000005 +1 +1 +0 % +1 +2 h +2 h +AWAITING 1, SYNCHRONISED 1/);
    expect(text).toMatch(/gdsn-nl +_ +0614141000005 +1 +1 +0 % +0 +- +- +AWAITING 1, REVIEW 1/);
  });

  it('shows one recipient per day, and says how to find the recipients when it names none counted', async () => {
    const store = await publishedStore();

    const series = await recipientSeries(store, 'gdsn-de', '_', { days: 2, now });
    const unknown = await recipientSeries(store, 'gdsn-de', '0614141999999', { days: 2, now });

    expect(series.days.map((day) => [day.day, day.published])).toEqual([
      ['2026-11-19', 0],
      ['2026-11-20', 1],
    ]);
    expect(recipientSeriesText(series)).toMatch(/2026-11-20 +1 +1 +0 % +1 +2 h/);
    expect(recipientSeriesText(unknown)).toContain('`pds bridge recipients` lists the recipients');
  });
});
