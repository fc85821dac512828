/**
 * What a running local stack writes to its stack file (packages/cli/src/stack-file.ts reads and writes the
 * file; the command lines that find the stack only read it).
 */

import type { StackFacts } from '@pds-bridge/cli/stack-file.ts';
import { EVENT_QUEUE_ROLES } from './resources.ts';
import type { RunningLocalStack } from './stack.ts';

/**
 * The facts of a running stack; `pid` and `startedAt` default to this process and now.
 *
 * @example
 * ```ts
 * await writeStackFile(DEFAULT_STACK_FILE, stackFactsOf(stack));
 * ```
 */
export function stackFactsOf(stack: RunningLocalStack, pid = process.pid, now = new Date()): StackFacts {
  return {
    version: 1,
    pid,
    startedAt: now.toISOString(),
    aws: { ...stack.aws },
    buckets: { ...stack.buckets },
    eventQueues: EVENT_QUEUE_ROLES.map((role) => ({
      name: stack.queues[role].name,
      url: stack.queues[role].url,
    })),
    api: { ...stack.api },
    // A real PDS's password stays out of the file; the simulator's demo credentials are no secret.
    pds: {
      url: stack.pds.url,
      username: stack.pds.username,
      ...(stack.pds.simulated ? { password: stack.pds.password } : {}),
      simulated: stack.pds.simulated,
    },
    ingest: { prefix: stack.ingest.prefix, suffixes: [...stack.ingest.suffixes] },
    webhookSecretsDir: stack.webhookSecretsDir,
  };
}
