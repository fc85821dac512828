/**
 * The simulator's recipients answer as real ones do, per channel: each behaviour's reviews and the
 * confirmations their messages hold, as the bridge's own parser reads them.
 */
import { describe, expect, it } from 'vitest';
import { parseMessagingAssetSafely } from '../../packages/bridge/src/xml/index.ts';
import { DEMO_CHANNEL_IDS, DEMO_PRIMARY_KEYS, seedDemoData } from '../../packages/simulator/src/demo-data.ts';
import { recordReviews } from '../../packages/simulator/src/reviews.ts';
import { type RecipientBehaviour, SimulatorState } from '../../packages/simulator/src/state.ts';

const AT = Date.UTC(2026, 10, 20, 9, 0, 0);

function answer(behaviour: RecipientBehaviour, key: string = DEMO_PRIMARY_KEYS.water) {
  const state = new SimulatorState(1);
  seedDemoData(state, true);
  const channel = {
    ...(state.channel(DEMO_CHANNEL_IDS.germany) as NonNullable<ReturnType<typeof state.channel>>),
    recipient: behaviour,
  };
  const item = state.items.get(key) ?? { primaryKey__: key };
  const read = () =>
    recordReviews(state, channel, item, AT).map((review) => {
      const xml = state.messagingAssets.get(review.messagingAssetId)?.xml ?? '';
      const parsed = parseMessagingAssetSafely(xml);
      const cic = parsed.ok ? parsed.cic?.[0] : undefined;
      const gdsn = parsed.ok ? parsed.gdsn : undefined;
      return { review, cic, gdsn };
    });
  return { read };
}

describe('simulator recipients', () => {
  it('synchronise: SYNCHRONISED for a valid item, REVIEW with a corrective action per problem', () => {
    const [valid] = answer('synchronise').read();
    const [invalid] = answer('synchronise', DEMO_PRIMARY_KEYS.unnamed).read();

    expect(valid?.cic).toMatchObject({
      gdsnVersion: '3.1',
      state: 'SYNCHRONISED',
      targetMarketCountryCode: '276',
    });
    expect(invalid?.review.reviewStatus).toBe('REVIEW');
    expect(invalid?.cic?.statuses[0]?.correctiveActions[0]?.code).toBe('ACTION_NEEDED');
  });

  it('review: REVIEW with a corrective action first, SYNCHRONISED after a republication', () => {
    const { read } = answer('review', DEMO_PRIMARY_KEYS.chocolate);

    const [first] = read();
    const [second] = read();

    expect(first?.cic?.state).toBe('REVIEW');
    expect(first?.cic?.statuses[0]?.correctiveActions[0]).toMatchObject({
      code: 'ACTION_NEEDED',
      expectedCorrectiveInformation: 'Correct the attribute netContent and publish again.',
    });
    expect(second?.cic?.state).toBe('SYNCHRONISED');
  });

  it('data-pool-refuse: a GS1 Response REJECTED by the data pool, with error GDSN.1091 naming the item', () => {
    const [refused] = answer('data-pool-refuse').read();

    expect(refused?.review.reviewStatus).toBe('REJECTED');
    expect(refused?.cic).toBeUndefined();
    expect(refused?.gdsn).toMatchObject({
      messageType: 'gs1Response',
      gdsnVersion: '3.1',
      status: 'REJECTED',
      refusal: true,
      senderGln: '0614141000203',
      errors: [{ code: 'GDSN.1091', level: 'document', gtins: [`0${DEMO_PRIMARY_KEYS.water}`] }],
    });
    expect(refused?.gdsn?.errors?.[0]?.description).toContain('already exists');
  });

  it('resend-request: a RequestForCatalogueItemNotification first, SYNCHRONISED after a republication', () => {
    const { read } = answer('resend-request', DEMO_PRIMARY_KEYS.chocolate);

    const [first] = read();
    const [second] = read();

    expect(first?.gdsn).toMatchObject({
      messageType: 'requestForCatalogueItemNotification',
      isReload: false,
      items: [{ gtin: `0${DEMO_PRIMARY_KEYS.chocolate}`, targetMarketCountryCode: '276' }],
    });
    expect(first?.cic).toBeUndefined();
    expect(second?.cic?.state).toBe('SYNCHRONISED');
  });

  it('reject, gdsn-2.8, out-of-order and silent', () => {
    const [rejected] = answer('reject').read();
    const [accepted] = answer('gdsn-2.8').read();
    const twice = answer('out-of-order').read();
    const silent = answer('silent').read();

    expect(rejected?.cic?.state).toBe('REJECTED');
    expect(accepted?.cic).toMatchObject({
      gdsnVersion: '2.8',
      state: 'ACCEPTED',
      targetMarketCountryCode: '276',
    });
    // Listed in this order, created the other way round.
    expect(twice.map((answered) => answered.cic?.state)).toEqual(['SYNCHRONISED', 'RECEIVED']);
    expect(twice[0]?.review.messagingAssetId).toBeLessThan(twice[1]?.review.messagingAssetId as number);
    expect(Date.parse(twice[1]?.cic?.creationDateTime as string)).toBeLessThan(
      Date.parse(twice[0]?.cic?.creationDateTime as string),
    );
    expect(silent).toEqual([]);
  });
});
