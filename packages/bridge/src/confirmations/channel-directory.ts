/**
 * Who may speak for a communication channel, for the trust rules of ./trust.ts: the GLNs of its data
 * pool (and the Global Registry), and of the recipients it leads to. The spec does not show a
 * communication channel's fields (docs/spec-gaps.md), so nothing here depends on a guess:
 *
 * - `DATA_POOL_GLNS` (configured): the GLNs of the data pools and of the Global Registry the bridge's
 *   channels lead to; trusted for every channel;
 * - detected: a channel record of `GET /api/v1/communicationchannels` that carries a 13-digit
 *   `dataPoolGln` or `recipientGln` adds it for that channel (the simulator's records do; a real PDS
 *   may not).
 *
 * With neither, no GLN speaks for a data pool and a channel's recipients are those its entries have
 * learnt from their own confirmations: refusals are never applied, confirmations are believed from
 * the recipient they concern alone, and a resend request only from a recipient that has answered
 * before. The rule holds either way; only what is believed grows with what is known.
 */
import type { CommunicationChannel } from '../pds/index.ts';
import { isGln } from './identifiers.ts';

/** Who speaks for each communication channel. */
export interface ChannelDirectory {
  /** The GLNs speaking for `channelId`'s data pool (every configured one; with no channel, those alone). */
  dataPoolsOf(channelId: string | undefined): Promise<ReadonlySet<string>>;
  /** The recipient GLNs the channel's record names (none when the PDS does not say). */
  recipientsOf(channelId: string): Promise<ReadonlySet<string>>;
}

/** How long a channel listing is reused before it is read again. */
export const CHANNEL_LISTING_TTL_MS = 15 * 60_000;

interface ChannelParties {
  dataPool?: string;
  recipient?: string;
}

const NONE: ReadonlySet<string> = new Set();

/**
 * A directory from the configured data pool GLNs and, when `listChannels` is given, each channel's
 * `dataPoolGln` and `recipientGln` (the listing is read at most once per `ttlMs`; a failed read
 * throws, so the caller's run stops and the message is read again rather than judged without them).
 *
 * @example
 * ```ts
 * const channels = channelDirectory({ dataPools: ['0614141000029'], listChannels: () => pds.listCommunicationChannels() });
 * await channels.dataPoolsOf('gdsn-de'); // Set { '0614141000029', … }
 * ```
 */
export function channelDirectory(options: {
  dataPools: readonly string[];
  /** Recipients per channel known without asking the PDS (tests, and a deployment that pins them). */
  recipients?: Readonly<Record<string, readonly string[]>>;
  listChannels?: () => Promise<readonly CommunicationChannel[]>;
  ttlMs?: number;
  now?: () => number;
}): ChannelDirectory {
  const configured = new Set(options.dataPools);
  const ttlMs = options.ttlMs ?? CHANNEL_LISTING_TTL_MS;
  const now = options.now ?? Date.now;
  let cached: { at: number; byChannel: Promise<Map<string, ChannelParties>> } | undefined;
  const detected = async (channelId: string): Promise<ChannelParties | undefined> => {
    if (options.listChannels === undefined) return undefined;
    if (cached === undefined || now() - cached.at >= ttlMs) {
      const byChannel = options.listChannels().then(partiesByChannel);
      // A failed listing is not kept: the next call reads it again.
      byChannel.catch(() => {
        if (cached?.byChannel === byChannel) cached = undefined;
      });
      cached = { at: now(), byChannel };
    }
    return (await cached.byChannel).get(channelId);
  };
  return {
    async dataPoolsOf(channelId) {
      if (channelId === undefined) return configured;
      const gln = (await detected(channelId))?.dataPool;
      return gln === undefined || configured.has(gln) ? configured : new Set([...configured, gln]);
    },
    async recipientsOf(channelId) {
      const pinned = options.recipients?.[channelId] ?? [];
      const gln = (await detected(channelId))?.recipient;
      const all = gln === undefined ? pinned : [...pinned, gln];
      return all.length === 0 ? NONE : new Set(all);
    },
  };
}

/** A directory that knows only `dataPools` (and, optionally, channels' recipients): no PDS is asked. */
export function fixedChannelDirectory(
  dataPools: readonly string[],
  recipients?: Readonly<Record<string, readonly string[]>>,
): ChannelDirectory {
  return channelDirectory({ dataPools, ...(recipients ? { recipients } : {}) });
}

function partiesByChannel(channels: readonly CommunicationChannel[]): Map<string, ChannelParties> {
  const byChannel = new Map<string, ChannelParties>();
  for (const channel of channels) {
    const { dataPoolGln, recipientGln } = channel as { dataPoolGln?: unknown; recipientGln?: unknown };
    const parties: ChannelParties = {
      ...(typeof dataPoolGln === 'string' && isGln(dataPoolGln) ? { dataPool: dataPoolGln } : {}),
      ...(typeof recipientGln === 'string' && isGln(recipientGln) ? { recipient: recipientGln } : {}),
    };
    if (typeof channel.id === 'string') byChannel.set(channel.id, parties);
  }
  return byChannel;
}
