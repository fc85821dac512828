/**
 * The local stack as the integration tests start it: every port chosen by the system (tests run in
 * parallel), the pollers every second, only errors logged. Each test overrides what it needs.
 */
import {
  type LocalStackOptions,
  type RunningLocalStack,
  startLocalStack,
} from '../../packages/local/src/stack.ts';

export function startTestStack(overrides: LocalStackOptions = {}): Promise<RunningLocalStack> {
  return startLocalStack({
    awsPort: 0,
    pdsPort: 0,
    apiPort: 0,
    messagingAssetsRateMs: 1000,
    supplierReviewsRateMs: 1000,
    logLevel: 'ERROR',
    ...overrides,
  });
}
