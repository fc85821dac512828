/**
 * Who a fact is for: the channels a publication creates entries at, and whether a confirmation comes
 * from the recipient an entry names (./ledger.ts routes each fact with them).
 */
import type { ConfirmationEntryKey } from '../events/data/index.ts';
import type { Destination } from '../pds/index.ts';
import type { CicSummary } from '../xml/index.ts';

/**
 * The distinct communication channels of a publication; IN_PLATFORM destinations are organisations on
 * the platform, not trading partners, and get no entries.
 */
export function communicationChannels(destinations: readonly Destination[]): string[] {
  return [
    ...new Set(
      destinations
        .filter((destination) => destination.destinationType === 'COMMUNICATION_CHANNEL')
        .map((destination) => destination.destinationId),
    ),
  ];
}

/** True when the confirmation is from the entry's recipient (or either leaves it unnamed). */
export function namesSameRecipient(key: ConfirmationEntryKey, cic: CicSummary): boolean {
  const glnMatches =
    key.recipientGln === undefined || cic.recipientGln === undefined || key.recipientGln === cic.recipientGln;
  const marketMatches =
    key.targetMarket === undefined ||
    cic.targetMarketCountryCode === undefined ||
    key.targetMarket === cic.targetMarketCountryCode;
  return glnMatches && marketMatches;
}
