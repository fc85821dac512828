/**
 * The PDS communication channel list, cached per container for a short time: channel ids change
 * rarely, and callers look them up before every publication. Concurrent misses share one PDS call;
 * a failed call is not cached.
 */
import type { CommunicationChannel } from '../pds/index.ts';

export interface CachedChannels {
  channels: CommunicationChannel[];
  fetchedAt: Date;
}

/**
 * @example
 * ```ts
 * const cache = new ChannelCache(60_000);
 * const { channels } = await cache.get(() => pds.listCommunicationChannels());
 * ```
 */
export class ChannelCache {
  readonly #ttlMs: number;
  readonly #now: () => Date;
  #cached: CachedChannels | undefined;
  #loading: Promise<CachedChannels> | undefined;

  /** `ttlMs` 0 turns caching off (every call reads the PDS). */
  constructor(ttlMs: number, now: () => Date = () => new Date()) {
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  /** The cached list while fresh, else the list `load` returns (shared by concurrent callers). */
  get(load: () => Promise<CommunicationChannel[]>): Promise<CachedChannels> {
    const cached = this.#cached;
    if (cached && this.#now().getTime() - cached.fetchedAt.getTime() < this.#ttlMs) {
      return Promise.resolve(cached);
    }
    this.#loading ??= (async () => {
      try {
        const channels = await load();
        const fresh = { channels, fetchedAt: this.#now() };
        if (this.#ttlMs > 0) this.#cached = fresh;
        return fresh;
      } finally {
        this.#loading = undefined;
      }
    })();
    return this.#loading;
  }
}
