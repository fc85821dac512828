/**
 * The operators' commands' pure parts: what a `why` subject and a `redrive` queue argument name,
 * the time window of `replay`, and the redrive through SQS's message move task, which no local
 * emulator offers (the copy fallback is driven against the local stack in local-stack-ops.test.ts).
 */
import {
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  SQSClient,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../packages/bridge/src/core/index.ts';
import { parseTimeFlag } from '../../packages/cli/src/commands/bridge.ts';
import { WhySubjectError } from '../../packages/cli/src/ops/errors.ts';
import { SqsOperatorQueues } from '../../packages/cli/src/ops/sqs/queues.ts';
import { accountOfQueueUrl, deployedStateBucket, redrivePair } from '../../packages/cli/src/ops/target.ts';
import { parseWhySubject } from '../../packages/cli/src/ops/why.ts';

describe('parseWhySubject', () => {
  it('reads an S3 URL (keys keep their slashes and spaces), a publication id and a messaging-asset id', () => {
    expect(parseWhySubject('s3://drops/in/Q1 items.csv', 'v1')).toEqual({
      kind: 'object',
      bucket: 'drops',
      key: 'in/Q1 items.csv',
      versionId: 'v1',
    });
    expect(parseWhySubject('publication/0f9c6a2e-8d1b-4a53-9a57-6f7c1e2d3b4a')).toEqual({
      kind: 'publication',
      publicationId: '0f9c6a2e-8d1b-4a53-9a57-6f7c1e2d3b4a',
    });
    expect(parseWhySubject('0f9c6a2e-8d1b-4a53-9a57-6f7c1e2d3b4a')).toMatchObject({ kind: 'publication' });
    expect(parseWhySubject('42')).toEqual({ kind: 'messaging-asset', messagingAssetId: 42 });
    expect(parseWhySubject('messaging-asset/7')).toEqual({ kind: 'messaging-asset', messagingAssetId: 7 });
  });

  it('refuses text that names nothing, saying what it accepts', () => {
    expect(() => parseWhySubject('s3://bucket-only')).toThrow(WhySubjectError);
    expect(() => parseWhySubject('two words')).toThrow(/s3:\/\/BUCKET\/KEY/);
  });
});

describe('redrivePair', () => {
  it('finds the queue and its DLQ by role, by either full name, and the schedule DLQ without a source', () => {
    const pair = {
      role: 'ingest',
      source: 'pds-bridge-prod-ingest',
      deadLetter: 'pds-bridge-prod-ingest-dlq',
    };
    expect(redrivePair('prod', 'ingest')).toEqual(pair);
    expect(redrivePair('prod', 'pds-bridge-prod-ingest')).toEqual(pair);
    expect(redrivePair('prod', 'pds-bridge-prod-ingest-dlq')).toEqual(pair);
    expect(redrivePair('prod', 'poller-schedule')).toEqual({
      role: 'poller-schedule',
      deadLetter: 'pds-bridge-prod-poller-schedule-dlq',
    });
    expect(redrivePair('prod', 'pds-bridge-dev-ingest')).toBeUndefined();
  });

  it('derives the deployed state bucket from the account in a queue URL', () => {
    const account = accountOfQueueUrl(
      'https://sqs.eu-central-1.amazonaws.com/123456789012/pds-bridge-prod-events',
    );
    expect(account).toBe('123456789012');
    expect(deployedStateBucket(account as string, 'eu-central-1', 'prod')).toBe(
      'pds-bridge-state-123456789012-eu-central-1-prod',
    );
  });
});

describe('parseTimeFlag', () => {
  const now = Date.parse('2026-05-04T12:00:00Z');

  it('reads ISO times and durations before now', () => {
    expect(parseTimeFlag('2026-05-04T10:00:00Z', 'since', 'bridge replay', now)).toBe(
      Date.parse('2026-05-04T10:00:00Z'),
    );
    expect(parseTimeFlag('90m', 'since', 'bridge replay', now)).toBe(now - 90 * 60_000);
    expect(parseTimeFlag('7d', 'since', 'bridge replay', now)).toBe(now - 7 * 86_400_000);
  });

  it('refuses anything else as a usage error naming the flag and the accepted forms', () => {
    expect(() => parseTimeFlag('yesterday', 'until', 'bridge replay', now)).toThrow(UsageError);
    expect(() => parseTimeFlag('12', 'until', 'bridge replay', now)).toThrow(
      /--until must be an ISO 8601 time/,
    );
  });
});

describe('SqsOperatorQueues.move', () => {
  it('starts a message move task from the DLQ to its source queue at the given rate', async () => {
    // prepare
    const sqs = mockClient(SQSClient);
    sqs.on(GetQueueUrlCommand).callsFake(({ QueueName }) => ({
      QueueUrl: `https://sqs.eu-central-1.amazonaws.com/123456789012/${QueueName}`,
    }));
    sqs.on(GetQueueAttributesCommand).callsFake(({ QueueUrl }) => ({
      Attributes: { QueueArn: `arn:aws:sqs:eu-central-1:123456789012:${String(QueueUrl).split('/').pop()}` },
    }));
    sqs.on(StartMessageMoveTaskCommand).resolves({ TaskHandle: 'task-1' });
    const queues = new SqsOperatorQueues({ sqs: new SQSClient({ region: 'eu-central-1' }) });

    // act
    const result = await queues.move('pds-bridge-prod-ingest-dlq', 'pds-bridge-prod-ingest', {
      perSecond: 5,
    });

    // assess
    expect(result).toEqual({ method: 'move-task', taskHandle: 'task-1' });
    expect(sqs.commandCalls(StartMessageMoveTaskCommand)[0]?.args[0].input).toEqual({
      SourceArn: 'arn:aws:sqs:eu-central-1:123456789012:pds-bridge-prod-ingest-dlq',
      DestinationArn: 'arn:aws:sqs:eu-central-1:123456789012:pds-bridge-prod-ingest',
      MaxNumberOfMessagesPerSecond: 5,
    });
    sqs.restore();
  });
});
