/**
 * `pds bridge confirmations` and `pds bridge why PUBLICATION_ID` read the confirmation ledger: rows per
 * item and recipient with the corrective actions, a count per state, the exception list by state.
 */
import { describe, expect, it } from 'vitest';
import { confirmationsText, explanationText } from '../../packages/cli/src/commands/bridge-text.ts';
import { confirmationsOfPublication, findConfirmations } from '../../packages/cli/src/ops/confirmations.ts';
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
