/**
 * The HTTP API's errors (packages/bridge/src/core's BridgeError model; codes in docs/operations.md, "Error codes").
 * Every route answers with ApiProblem (./problem.ts); ./problem-mapping.ts maps these to it.
 */
import { BridgeError } from '../core/index.ts';

/**
 * A path parameter cannot be read: its segment is not valid percent-encoding, it is empty, or it is
 * not well-formed Unicode (a lone surrogate, which no state key or log line can carry).
 */
export class InvalidPathError extends BridgeError {
  readonly segment: string;

  constructor(
    segment: string,
    problem = 'is not valid percent-encoding; encode each path parameter once with encodeURIComponent',
  ) {
    super('INVALID_PATH', `The path segment ${JSON.stringify(segment.slice(0, 80))} ${problem}`);
    this.name = 'InvalidPathError';
    this.segment = segment;
  }
}
