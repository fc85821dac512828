/**
 * Whom the ledger believes (docs/confirmations.md, "Whom the ledger believes"). A GDSN message is
 * written by a trading partner or a data pool, and anyone on the network can write any GLN into a
 * confirmation's `recipientGLN`; what the message cannot choose as freely is who sends it (the
 * Standard Business Document Header's sender, which the data pool that relays the message has
 * authenticated) and the message creator it declares. So a message changes an entry only when
 * **every** party it names as its author may speak about that entry:
 *
 * - a confirmation (CIC): the recipient it is about, or the channel's data pool relaying it;
 * - a refusal (GS1 Response, GDSNResponse, registration response): a data pool or the Global Registry;
 * - a resend request (RFCIN): the recipient asking, named by an entry of the item, or its data pool.
 *
 * A message that names no author at all is not believed either: nothing shows who wrote it. These
 * are pure functions; ./ledger.ts counts, logs and keeps as unmatched what they refuse.
 */

/**
 * Who a message says wrote it. `senderGln` is the SBDH sender (or, in summaries written before the
 * reader separated them, the sender else the document's content owner); `messageCreatorGln` the
 * message's `messageCreatorGLN` when the summary carries it; `creatorGln` a CIC's content owner,
 * else its header's sender. Read optionally: each is used when present.
 */
export interface MessageAuthors {
  senderGln?: string | undefined;
  messageCreatorGln?: string | undefined;
  creatorGln?: string | undefined;
}

/** The distinct GLNs a message names as its author(s), in a stable order. */
export function authorsOf(...claims: ReadonlyArray<MessageAuthors | undefined>): string[] {
  const authors = new Set<string>();
  for (const claim of claims) {
    for (const gln of [claim?.senderGln, claim?.messageCreatorGln, claim?.creatorGln]) {
      const trimmed = gln?.trim();
      if (trimmed) authors.add(trimmed);
    }
  }
  return [...authors].sort();
}

/** The verdict on one message about one entry: believed, or why not (for the log line). */
export type TrustVerdict = { trusted: true } | { trusted: false; reason: string; authors: string[] };

/**
 * Believed when the message names at least one author and every author is one of `maySpeak`.
 *
 * @example
 * ```ts
 * trustedAuthors(['0614141000005'], new Set(['0614141000005'])); // { trusted: true }
 * trustedAuthors(['0614141000098'], new Set(['0614141000005'])); // { trusted: false, … }
 * ```
 */
export function trustedAuthors(authors: readonly string[], maySpeak: ReadonlySet<string>): TrustVerdict {
  if (authors.length === 0) {
    return { trusted: false, reason: 'the message names no sender or creator', authors: [] };
  }
  const strangers = authors.filter((gln) => !maySpeak.has(gln));
  if (strangers.length === 0) return { trusted: true };
  return {
    trusted: false,
    reason: `sent or created by ${strangers.join(', ')}, who may not speak for it (may: ${[...maySpeak].sort().join(', ') || 'nobody known'})`,
    authors: [...authors],
  };
}

/**
 * A confirmation about the entry whose recipient is `recipientGln`: believed from that recipient or
 * from one of the channel's data pools.
 */
export function confirmationVerdict(
  authors: readonly string[],
  recipientGln: string | undefined,
  dataPools: ReadonlySet<string>,
): TrustVerdict {
  const maySpeak = new Set(dataPools);
  if (recipientGln) maySpeak.add(recipientGln);
  return trustedAuthors(authors, maySpeak);
}

/** A refusal: believed only from a data pool or the Global Registry (`dataPools` holds both). */
export function refusalVerdict(authors: readonly string[], dataPools: ReadonlySet<string>): TrustVerdict {
  return trustedAuthors(authors, dataPools);
}

/**
 * A resend request from `requester`: believed when an entry of the item names that recipient and the
 * message's authors are it or a data pool.
 */
export function resendVerdict(
  authors: readonly string[],
  requester: string | undefined,
  namedRecipients: ReadonlySet<string>,
  dataPools: ReadonlySet<string>,
): TrustVerdict {
  if (!requester || !namedRecipients.has(requester)) {
    return {
      trusted: false,
      reason: `the requesting recipient ${requester ?? '(none named)'} is not a recipient the item's entries name`,
      authors: [...authors],
    };
  }
  return trustedAuthors(authors, new Set([...dataPools, requester]));
}
