/**
 * A process kill, in-process: wraps the state store and the PDS client of one delivery and, from the
 * moment the switch trips, fails every call that delivery makes next, as if its process had died.
 * Calls already under way complete where they were sent (a request on the wire still reaches the PDS
 * or S3), but their answers reach nobody: the delivery's next call fails. The switch trips after a
 * given number of calls (state requests and PDS requests counted together), so a seeded number picks
 * a moment anywhere in the delivery: during the upload, between an import and its record, mid-write.
 */
import type { IngestPdsClient } from '../../packages/bridge/src/ingest/ports.ts';
import type { StateStore } from '../../packages/bridge/src/state/store.ts';

export class KilledError extends Error {
  constructor() {
    super('process killed');
    this.name = 'KilledError';
  }
}

export class KillSwitch {
  /** Calls made so far. */
  calls = 0;
  #killAt: number;
  #dead = false;

  /** @param killAt the call that finds the process dead (1 = the first); Infinity never trips */
  constructor(killAt: number) {
    this.#killAt = killAt;
  }

  get tripped(): boolean {
    return this.#dead;
  }

  #enter(): void {
    this.calls += 1;
    if (this.calls >= this.#killAt) this.#dead = true;
    if (this.#dead) throw new KilledError();
  }

  /** The store as the doomed delivery sees it. */
  store(inner: StateStore): StateStore {
    const enter = () => this.#enter();
    return {
      get(key) {
        enter();
        return inner.get(key);
      },
      create(key, value) {
        enter();
        return inner.create(key, value);
      },
      update(key, value, etag) {
        enter();
        return inner.update(key, value, etag);
      },
      delete(key, etag) {
        enter();
        return inner.delete(key, etag);
      },
      list(prefix, options) {
        enter();
        return inner.list(prefix, options);
      },
      listEntries(prefix, options) {
        enter();
        return inner.listEntries(prefix, options);
      },
      mutate(key, fn, options) {
        enter();
        return inner.mutate(key, fn, options);
      },
    };
  }

  /** The PDS client as the doomed delivery sees it. */
  pds(inner: IngestPdsClient): IngestPdsClient {
    return {
      uploadGathering: async (source) => {
        this.#enter();
        return inner.uploadGathering(source);
      },
      startImport: async (request) => {
        this.#enter();
        return inner.startImport(request);
      },
    };
  }
}
