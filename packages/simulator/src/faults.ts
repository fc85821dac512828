/**
 * Fault injection: scripted faults first (deterministic, for one test), then probabilistic ones
 * drawn from a seeded PRNG so that the same seed and request order give the same faults.
 */
import { checkInteger } from '@pds-bridge/bridge/core';
import { SimulatorOptionsError } from './errors.ts';
import { mulberry32, type Random } from './random.ts';

export interface FaultOptions {
  /** Share (0..1) of matching requests answered with one of `statuses` instead of being served. */
  rate?: number;
  /** Default [503, 429]. */
  statuses?: Array<429 | 502 | 503 | 504>;
  /** Sent as Retry-After on 429 and 503; default 1. */
  retryAfterSeconds?: number;
  /** Added to every matching request before it is handled. */
  latencyMs?: number;
  /** Share (0..1) of matching requests whose connection is reset mid-body (response body for requests
   * without a body; request body while uploading for requests that have one). */
  resetRate?: number;
  /** Seed of the fault PRNG: the same seed and request order give the same faults. */
  seed?: number;
  /** Only requests whose path starts with this prefix are eligible (default: every request). */
  pathPrefix?: string;
}

export interface ScriptedFault {
  kind: 'status' | 'reset';
  /** For kind 'status'; default 503. */
  status?: 429 | 500 | 502 | 503 | 504;
  retryAfterSeconds?: number;
  /** Match only this method. */
  method?: string;
  /** Match only paths starting with this. */
  pathPrefix?: string;
}

/** What to do to one request instead of serving it. */
export type FaultDecision = { kind: 'status'; status: number; retryAfterSeconds: number } | { kind: 'reset' };

const DEFAULT_STATUSES: ReadonlyArray<429 | 502 | 503 | 504> = [503, 429];
const DEFAULT_RETRY_AFTER_SECONDS = 1;

/**
 * Decides, request by request, whether a fault replaces the normal answer.
 *
 * @example
 * const faults = new FaultInjector({ rate: 0.2, seed: 7 }, 1);
 * faults.decide('GET', '/api/v1/communicationchannels'); // undefined or a FaultDecision
 */
export class FaultInjector {
  #options: FaultOptions | undefined;
  #random: Random;
  readonly #defaultSeed: number;
  readonly #queue: Array<{ remaining: number; fault: ScriptedFault }> = [];

  constructor(options: FaultOptions | undefined, defaultSeed: number) {
    this.#defaultSeed = defaultSeed;
    this.#options = validateFaultOptions(options);
    this.#random = mulberry32(options?.seed ?? defaultSeed);
  }

  /** Replaces the probabilistic faults and restarts their PRNG from the (new) seed. */
  setFaults(options: FaultOptions | undefined): void {
    this.#options = validateFaultOptions(options);
    this.#random = mulberry32(options?.seed ?? this.#defaultSeed);
  }

  /** Queues `fault` for the next `count` matching requests; queued faults are used in the order given. */
  failNext(count: number, fault: ScriptedFault): void {
    checkInteger('failNext count', count, { min: 1 }, (message) => new SimulatorOptionsError(message));
    if (fault.kind !== 'status' && fault.kind !== 'reset') {
      throw new SimulatorOptionsError(
        `failNext fault.kind must be 'status' or 'reset', got '${String(fault.kind)}'`,
      );
    }
    this.#queue.push({ remaining: count, fault: { ...fault } });
  }

  /** Milliseconds to wait before handling a request to `path`. */
  latencyFor(path: string): number {
    const options = this.#options;
    if (!options?.latencyMs || !matchesPrefix(path, options.pathPrefix)) return 0;
    return options.latencyMs;
  }

  /** The fault for this request, or undefined to serve it normally. Consumes scripted faults and PRNG draws. */
  decide(method: string, path: string): FaultDecision | undefined {
    const scripted = this.#takeScripted(method, path);
    if (scripted) return scripted;
    const options = this.#options;
    if (!options || !matchesPrefix(path, options.pathPrefix)) return undefined;
    if (!options.rate && !options.resetRate) return undefined;
    // Always three draws per eligible request, so one decision never shifts the next one's numbers.
    const statusRoll = this.#random();
    const statusPick = this.#random();
    const resetRoll = this.#random();
    const statuses = options.statuses?.length ? options.statuses : DEFAULT_STATUSES;
    if (statusRoll < (options.rate ?? 0)) {
      const status = statuses[Math.floor(statusPick * statuses.length)] ?? 503;
      return {
        kind: 'status',
        status,
        retryAfterSeconds: options.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS,
      };
    }
    if (resetRoll < (options.resetRate ?? 0)) return { kind: 'reset' };
    return undefined;
  }

  #takeScripted(method: string, path: string): FaultDecision | undefined {
    const index = this.#queue.findIndex(
      ({ fault }) =>
        (fault.method === undefined || fault.method.toUpperCase() === method) &&
        matchesPrefix(path, fault.pathPrefix),
    );
    const slot = this.#queue[index];
    if (!slot) return undefined;
    slot.remaining -= 1;
    if (slot.remaining === 0) this.#queue.splice(index, 1);
    if (slot.fault.kind === 'reset') return { kind: 'reset' };
    return {
      kind: 'status',
      status: slot.fault.status ?? 503,
      retryAfterSeconds: slot.fault.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS,
    };
  }
}

function matchesPrefix(path: string, prefix: string | undefined): boolean {
  return prefix === undefined || path.startsWith(prefix);
}

function validateFaultOptions(options: FaultOptions | undefined): FaultOptions | undefined {
  if (!options) return undefined;
  for (const key of ['rate', 'resetRate'] as const) {
    const value = options[key];
    if (value !== undefined && !(value >= 0 && value <= 1)) {
      throw new SimulatorOptionsError(`faults.${key} must be a share between 0 and 1, got ${value}`);
    }
  }
  for (const key of ['latencyMs', 'retryAfterSeconds'] as const) {
    const value = options[key];
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
      throw new SimulatorOptionsError(`faults.${key} must be a number >= 0, got ${value}`);
    }
  }
  for (const status of options.statuses ?? []) {
    if (![429, 502, 503, 504].includes(status)) {
      throw new SimulatorOptionsError(`faults.statuses may hold 429, 502, 503 or 504, got ${status}`);
    }
  }
  return { ...options };
}
