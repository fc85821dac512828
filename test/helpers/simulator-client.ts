import { type ClosablePdsClient, createPdsClient, type PdsClientOptions } from '../../lib/pds/index.ts';
import type { RunningSimulator } from '../../lib/simulator/index.ts';

/**
 * A PDS client signed in to a running simulator with its own credentials; `options` override any
 * transport setting (retries, timeouts, a wrong password).
 *
 * @example
 * ```ts
 * const sim = await startSimulator();
 * const pds = simulatorClient(sim);
 * ```
 */
export function simulatorClient(
  sim: Pick<RunningSimulator, 'url' | 'username' | 'password'>,
  options: Partial<PdsClientOptions> = {},
): ClosablePdsClient {
  return createPdsClient({
    baseUrl: sim.url,
    credentials: { username: sim.username, password: sim.password },
    ...options,
  });
}
