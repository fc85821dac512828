import type { PdsClientOptions } from '../../packages/bridge/src/pds/index.ts';
import { createFullPdsClient, type FullPdsClient } from '../../packages/bridge/src/pds/resources/index.ts';
import type { RunningSimulator } from '../../packages/simulator/src/index.ts';

/**
 * A PDS client (every operation of the spec, `/v1` families included) signed in to a running simulator with its own credentials; `options` override any
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
): FullPdsClient {
  return createFullPdsClient({
    baseUrl: sim.url,
    credentials: { username: sim.username, password: sim.password },
    ...options,
  });
}
