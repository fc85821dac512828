import { describe, expect, it } from 'vitest';
import { runDemo } from '../../packages/local/src/demo.ts';
import { createLocalResources, LOCAL_BUCKETS } from '../../packages/local/src/resources.ts';
import type { RunningLocalStack } from '../../packages/local/src/stack.ts';

/** A stack whose every address refuses connections (port 1 on the loopback interface). */
function unreachableStack(): RunningLocalStack {
  const endpoint = 'http://127.0.0.1:1';
  const resources = createLocalResources(
    {
      createBucket: () => ({ bucketName: '' }),
      inspectQueue: () => undefined,
      createQueue: (name: string) => ({
        queueArn: `arn:aws:sqs:us-east-1:000000000000:${name}`,
        queueUrl: '',
        queueName: name,
      }),
    } as never,
    endpoint,
  );
  return {
    aws: { endpoint, region: 'us-east-1', accessKeyId: 'test', secretAccessKey: 'test' },
    buckets: { ...LOCAL_BUCKETS },
    queues: resources.queues,
    deadLetterQueues: resources.deadLetterQueues,
    api: { url: endpoint, token: 'token-0123456789abcdef' },
    pds: { url: endpoint, username: 'demo', password: 'demo', simulated: true },
    rates: { messagingAssetsMs: 1000, supplierReviewsMs: 1000 },
    ingest: { prefix: '', suffixes: [] },
    webhookSecretsDir: '/tmp/pds-webhook-secrets-test',
    stop: async () => undefined,
  };
}

describe('runDemo', () => {
  it('names the step that did not happen, prints a ✗ line for it and goes no further', async () => {
    // prepare
    const lines: string[] = [];

    // act
    const result = await runDemo(unreachableStack(), {
      out: (line) => lines.push(line),
      timeouts: { webhookRegistered: 3000 },
    });

    // assess
    expect(result.ok).toBe(false);
    // The first step: the example webhook receiver registered through the API.
    expect(result.failedStep).toMatch(
      /^register the example webhook receiver http:\/\/127\.0\.0\.1:\d+\/hook \(POST \/webhooks\/endpoints\)$/,
    );
    expect(lines.filter((line) => line.startsWith('✗ '))).toEqual([
      `✗ ${result.failedStep}: ${result.reason}`,
    ]);
    expect(lines.some((line) => line.startsWith('✓ '))).toBe(false);
  });
});
