/**
 * `pds`, the operators' command line: every PDS operation of both path families, and the bridge's
 * own commands (status, why, replay, redrive, confirmations, webhooks). `bin/pds.mjs` runs it; the
 * local stack and the scripts share its argument parsing (`@pds-bridge/cli/command-line.ts`) and its
 * reading of the local stack's file (`@pds-bridge/cli/stack-file.ts`).
 *
 * @example
 * ```ts
 * import { runCli } from '@pds-bridge/cli';
 * process.exitCode = await runCli(['channels', '--json']);
 * ```
 */
export { EXIT, runCli } from './main.ts';
