/**
 * The identifiers a partner writes that the ledger keys or compares entries by, checked before they
 * are used: a recipient GLN is 13 digits and a target market 3 (GS1 GLN; ISO 3166-1 numeric, as the
 * GDSN schemas type `targetMarketCountryCode`). Anything else (`-`, an empty text, 200 characters of
 * another alphabet) names no recipient the ledger can hold an entry for, so the confirmation is
 * refused with the reason, never keyed (docs/confirmations.md, "Bounded").
 */

const GLN = /^\d{13}$/;
const TARGET_MARKET = /^\d{3}$/;

/** True for a GS1 Global Location Number as written in GDSN messages: 13 digits. */
export function isGln(text: string): boolean {
  return GLN.test(text);
}

/** True for a target market as GDSN writes it: an ISO 3166-1 numeric code, 3 digits. */
export function isTargetMarket(text: string): boolean {
  return TARGET_MARKET.test(text);
}

/** At most this many characters of a partner's text are quoted in a log line. */
const QUOTED = 40;

function quoted(text: string): string {
  const shown = text.length > QUOTED ? `${text.slice(0, QUOTED)}… (${text.length} characters)` : text;
  return JSON.stringify(shown);
}

/**
 * Why a confirmation's recipient cannot be keyed, or `undefined` when it can: a GLN, when given, is
 * 13 digits; a target market, when given, 3 digits. (An absent one is allowed: the channel's first
 * entry holds a confirmation that names none.)
 *
 * @example
 * recipientProblem({ recipientGln: '-' }); // 'recipient GLN "-" is not 13 digits'
 */
export function recipientProblem(recipient: {
  recipientGln?: string | undefined;
  targetMarketCountryCode?: string | undefined;
}): string | undefined {
  const { recipientGln, targetMarketCountryCode } = recipient;
  if (recipientGln !== undefined && !isGln(recipientGln)) {
    return `recipient GLN ${quoted(recipientGln)} is not 13 digits`;
  }
  if (targetMarketCountryCode !== undefined && !isTargetMarket(targetMarketCountryCode)) {
    return `target market ${quoted(targetMarketCountryCode)} is not a 3-digit ISO 3166-1 numeric code`;
  }
  return undefined;
}
