/**
 * The PDS simulator in a process of its own for the ingest chaos run, with faults and a seed, that
 * answers one IPC question at the end: which gatherings were uploaded and which imports were taken.
 * The simulator has no list endpoint for either (the PDS has none), so the state is read here.
 *
 *   node simulator.ts SEED FAULT_RATE RESET_RATE     prints {"url": ...} once it listens
 *
 * Faults hit every PDS request alike (503 and 429 with Retry-After 1 s, and resets mid-body).
 */
import { startSimulator } from '../../../packages/simulator/src/index.ts';

export interface SimulatorReport {
  gatherings: Array<{ gatheringKey: string; paths: string[] }>;
  /** In the order taken; `at` is when the simulator took the import (epoch ms). */
  imports: Array<{ gatheringKey: string; path: string; at: number }>;
  /** Requests answered with an injected fault (status) or reset. */
  faults: { statuses: number; resets: number; requests: number };
}

const [seed = '1', rate = '0', resetRate = '0'] = process.argv.slice(2);
const simulator = await startSimulator({
  port: 0,
  seed: Number(seed),
  demoData: false,
  faults: { rate: Number(rate), resetRate: Number(resetRate), seed: Number(seed) },
});

function report(): SimulatorReport {
  const { state, requestLog } = simulator;
  return {
    gatherings: [...state.gatherings.values()].map((gathering) => ({
      gatheringKey: gathering.gatheringKey,
      paths: gathering.entries.map((entry) => entry.path),
    })),
    imports: state.imports.map(({ gatheringKey, path, at }) => ({ gatheringKey, path, at })),
    faults: {
      // The injected answers carry these statuses; the bridge's own requests never cause them here.
      statuses: requestLog.filter((entry) => entry.status === 503 || entry.status === 429).length,
      resets: requestLog.filter((entry) => entry.status === 0).length,
      requests: requestLog.length,
    },
  };
}

process.on('message', (message) => {
  if (message === 'report') process.send?.(report());
});
// The supervisor going away (even killed) closes the IPC channel: never outlive it.
process.on('disconnect', () => {
  void simulator.close().then(() => process.exit(0));
});
process.stdout.write(`${JSON.stringify({ url: simulator.url })}\n`);
