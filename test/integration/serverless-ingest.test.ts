/**
 * The ingest part of the packaged CloudFormation template (osls package, offline): function sizing,
 * queue and DLQ, the drop bucket's notification, the queue policy and a least-privilege role.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type CloudFormationTemplate, packageService } from '../helpers/serverless.ts';

type Json = Record<string, unknown>;
interface Statement {
  Sid?: string;
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Principal?: unknown;
  Condition?: Json;
}

let template: CloudFormationTemplate;
let withExistingBucket: CloudFormationTemplate;

beforeAll(async () => {
  template = await packageService();
  withExistingBucket = await packageService([
    '--param',
    'dropBucket=acme-drops',
    '--param',
    'ingestPrefix=incoming/',
  ]);
}, 180_000);

function props(t: CloudFormationTemplate, id: string): Json {
  const resource = t.Resources[id];
  if (!resource) throw new Error(`${id} is not in the template`);
  return resource.Properties ?? {};
}

function conditions(t: CloudFormationTemplate): Json | undefined {
  return (t as CloudFormationTemplate & { Conditions?: Json }).Conditions;
}

function statements(t: CloudFormationTemplate): Statement[] {
  const policies = props(t, 'IngestRole').Policies as Array<{ PolicyDocument: { Statement: Statement[] } }>;
  return policies.flatMap((policy) => policy.PolicyDocument.Statement);
}

function actions(statement: Statement): string[] {
  return Array.isArray(statement.Action) ? statement.Action : [statement.Action];
}

describe('serverless template: ingest', () => {
  it('sizes the function for multi-GB files and keeps the lease above its timeout', () => {
    const fn = props(template, 'IngestLambdaFunction');
    const env = (fn.Environment as { Variables: Json }).Variables;

    expect(fn).toMatchObject({ Handler: 'dist/ingest/index.handler', MemorySize: 1024, Timeout: 900 });
    expect(fn.Role).toEqual({ 'Fn::GetAtt': ['IngestRole', 'Arn'] });
    expect(Number(env.INGEST_LEASE_SECONDS)).toBeGreaterThan(fn.Timeout as number);
    expect(env).toMatchObject({
      INGEST_SUFFIXES: '.csv,.json,.zip',
      INGEST_TAG_OBJECTS: 'true',
      PDS_CREDENTIALS_SECRET_ID: { Ref: 'PdsCredentialsSecret' },
      EVENTS_QUEUE_URL: { Ref: 'EventsQueue' },
      STATE_BUCKET: { Ref: 'StateBucket' },
      INGEST_BUCKETS: { 'Fn::If': ['IngestCreatesDropBucket', { Ref: 'DropBucket' }, ''] },
    });
  });

  it('consumes the ingest queue in small batches with partial batch responses', () => {
    const [mappingId] = Object.entries(template.Resources).find(
      ([, r]) =>
        r.Type === 'AWS::Lambda::EventSourceMapping' && JSON.stringify(r.Properties).includes('IngestQueue'),
    ) ?? [''];
    const mapping = props(template, mappingId);

    expect(mapping.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    expect(mapping.BatchSize).toBeLessThanOrEqual(10);
    expect(mapping.EventSourceArn).toEqual({ 'Fn::GetAtt': ['IngestQueue', 'Arn'] });
  });

  it('gives the queue a visibility timeout of at least six function timeouts and a redrive to a 14-day DLQ', () => {
    const queue = props(template, 'IngestQueue');
    const dlq = props(template, 'IngestDeadLetterQueue');
    const timeout = props(template, 'IngestLambdaFunction').Timeout as number;

    expect(queue.VisibilityTimeout).toBeGreaterThanOrEqual(6 * timeout);
    expect(queue.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': ['IngestDeadLetterQueue', 'Arn'] },
      maxReceiveCount: 5,
    });
    expect(dlq.MessageRetentionPeriod).toBe(1_209_600);
  });

  it('creates a versioned drop bucket that notifies the queue of every created object, after the queue policy', () => {
    const bucket = template.Resources.DropBucket;
    const notification = (props(template, 'DropBucket').NotificationConfiguration as Json)
      .QueueConfigurations;

    expect(bucket?.DependsOn).toEqual(['IngestQueuePolicy']);
    expect(props(template, 'DropBucket').VersioningConfiguration).toEqual({ Status: 'Enabled' });
    expect(notification).toEqual([
      expect.objectContaining({
        Event: 's3:ObjectCreated:*',
        Queue: { 'Fn::GetAtt': ['IngestQueue', 'Arn'] },
      }),
    ]);
    expect(conditions(template)).toMatchObject({ IngestCreatesDropBucket: { 'Fn::Equals': ['', ''] } });
  });

  it('lets only S3 of this account, for the drop bucket, send to the ingest queue', () => {
    const policy = props(template, 'IngestQueuePolicy').PolicyDocument as { Statement: Statement[] };

    expect(policy.Statement).toHaveLength(1);
    expect(policy.Statement[0]).toMatchObject({
      Effect: 'Allow',
      Principal: { Service: 's3.amazonaws.com' },
      Action: 'sqs:SendMessage',
      Condition: {
        ArnLike: { 'aws:SourceArn': expect.anything() },
        StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
      },
    });
  });

  it('grants the role exactly what the ingest needs, with no wildcard action or resource', () => {
    const all = statements(template);
    const granted = all.flatMap(actions).sort();

    for (const statement of all) {
      expect(actions(statement).some((action) => action.includes('*'))).toBe(false);
      expect(JSON.stringify(statement.Resource)).not.toBe('"*"');
    }
    expect(granted).toEqual(
      [
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        's3:DeleteObject',
        's3:GetObject',
        's3:GetObject',
        's3:GetObject',
        's3:GetObject',
        's3:GetObjectTagging',
        's3:GetObjectVersion',
        's3:GetObjectVersionTagging',
        's3:ListBucket',
        's3:ListBucket',
        's3:PutObject',
        's3:PutObject',
        's3:PutObject',
        's3:PutObject',
        's3:PutObjectTagging',
        's3:PutObjectVersionTagging',
        'secretsmanager:GetSecretValue',
        'sqs:ChangeMessageVisibility',
        'sqs:DeleteMessage',
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
        'sqs:ReceiveMessage',
        'sqs:SendMessage',
      ].sort(),
    );
    const logs = all.find((s) => actions(s).includes('logs:PutLogEvents'));
    expect(JSON.stringify(logs?.Resource)).toContain('log-group:/aws/lambda/pds-bridge-dev-ingest:*');
    const puts = all.filter((s) => actions(s).includes('s3:PutObject')).map((s) => s.Resource);
    expect(puts).toEqual(
      // publish-failures: what SQS did not accept, recorded for `pds bridge status` (events/publish-failures.ts).
      ['ingest', 'activity-index/ingest', 'claim-check', 'publish-failures'].map((prefix) => ({
        'Fn::Sub': `\${StateBucket.Arn}/${prefix}/*`,
      })),
    );
    expect(all.find((s) => actions(s).includes('sqs:SendMessage'))?.Resource).toEqual({
      'Fn::GetAtt': ['EventsQueue', 'Arn'],
    });
    expect(all.find((s) => actions(s).includes('secretsmanager:GetSecretValue'))?.Resource).toEqual({
      Ref: 'PdsCredentialsSecret',
    });
  });

  it('uses an existing drop bucket by name and filters its notification by the prefix', () => {
    const policy = props(withExistingBucket, 'IngestQueuePolicy').PolicyDocument as {
      Statement: Statement[];
    };
    const env = (props(withExistingBucket, 'IngestLambdaFunction').Environment as { Variables: Json })
      .Variables;

    expect(conditions(withExistingBucket)).toMatchObject({
      IngestCreatesDropBucket: { 'Fn::Equals': ['acme-drops', ''] },
    });
    expect(JSON.stringify(policy.Statement[0]?.Condition)).toContain('acme-drops');
    expect(JSON.stringify(statements(withExistingBucket))).toContain('acme-drops');
    expect(env.INGEST_PREFIX).toBe('incoming/');
    // The read and tag grant reaches only the ingest prefix of the existing bucket, not all of it.
    const reads = statements(withExistingBucket).find((s) => s.Sid === 'ReadAndTagDrops');
    expect(JSON.stringify(reads?.Resource)).toContain('s3:::${DropBucketName}/incoming/*');
    expect(JSON.stringify(reads?.Resource)).not.toContain('s3:::${DropBucketName}/*');
    // Listing it too: only under the prefix (a read answered 403 lists its exact key).
    const listing = statements(withExistingBucket).find((s) => s.Sid === 'TellMissingFromForbidden');
    expect(listing?.Condition).toEqual({ StringLike: { 's3:prefix': 'incoming/*' } });
    expect(JSON.stringify(props(withExistingBucket, 'DropBucket').NotificationConfiguration)).toContain(
      '"Value":"incoming/"',
    );
  });

  it('shares the events queue and the PDS credentials secret, and outputs the ingest queues', () => {
    expect(props(template, 'EventsQueue').MessageRetentionPeriod).toBe(1_209_600);
    expect(template.Resources.PdsCredentialsSecret?.Type).toBe('AWS::SecretsManager::Secret');
    expect(Object.keys(template.Outputs ?? {})).toEqual(
      expect.arrayContaining([
        'DropBucketName',
        'IngestQueueUrl',
        'IngestDeadLetterQueueUrl',
        'IngestDeadLetterQueueArn',
        'EventsQueueUrl',
      ]),
    );
  });
});
