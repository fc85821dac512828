/**
 * The local stack (`npm start`): the PDS simulator, an S3 and SQS emulator, every Lambda function and
 * the HTTP API on this machine, with no AWS account. `bin/local-stack.mjs` runs it from the command
 * line; tests start it in process.
 *
 * @example
 * ```ts
 * import { startLocalStack } from '@pds-bridge/local-stack';
 * const stack = await startLocalStack();
 * await stack.stop();
 * ```
 */
export { runLocalStackCli } from './cli.ts';
export {
  LOCAL_STACK_DEFAULTS,
  type LocalStackOptions,
  type RunningLocalStack,
  startLocalStack,
} from './stack.ts';
export { stackFactsOf } from './stack-facts.ts';
