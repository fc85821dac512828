/** The console on a target: connected as the `pds bridge` commands connect, closed together. */
import { connectOperator } from '../ops/connect.ts';
import type { BridgeTarget } from '../ops/target.ts';
import { type ConsoleOptions, type RunningConsole, startConsole } from './server.ts';

/**
 * Connects to the target and serves its console; `close()` stops both.
 *
 * @example
 * ```ts
 * const running = await startConsoleOn({ stage: 'local', stateBucket, emulator });
 * log(`console ${running.url}`);
 * ```
 */
export async function startConsoleOn(
  target: BridgeTarget,
  options: Omit<ConsoleOptions, 'connection'> = {},
): Promise<RunningConsole> {
  const connection = await connectOperator(target);
  try {
    const running = await startConsole({ ...options, connection });
    return {
      ...running,
      close: async () => {
        await running.close();
        connection.close();
      },
    };
  } catch (error) {
    connection.close();
    throw error;
  }
}
