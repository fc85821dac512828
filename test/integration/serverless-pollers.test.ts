import { beforeAll, describe, expect, it } from 'vitest';
import { type CloudFormationTemplate, packageService, resourcesOfType } from '../helpers/serverless.ts';

interface Statement {
  Sid?: string;
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Principal?: unknown;
  Condition?: unknown;
}

const FUNCTIONS = {
  PollMessagingAssets: 'poll-messaging-assets',
  PollSupplierReviews: 'poll-supplier-reviews',
  PollSupplierReviewsWorker: 'poll-supplier-reviews-worker',
} as const;

let template: CloudFormationTemplate;

beforeAll(async () => {
  template = await packageService([
    '--stage',
    'ci',
    '--region',
    'eu-west-1',
    '--param',
    'messagingAssetsRate=rate(2 minutes)',
    '--param',
    'pdsBaseUrl=https://pds.ci.test',
    '--param',
    'reserveConcurrency=true',
    '--param',
    'auditApply=false',
  ]);
}, 180_000);

function properties(logicalId: string): Record<string, unknown> {
  const resource = template.Resources[logicalId];
  if (!resource) throw new Error(`no resource ${logicalId} in the template`);
  return resource.Properties ?? {};
}

function statementsOf(roleId: string): Statement[] {
  const policies = properties(roleId).Policies as Array<{ PolicyDocument: { Statement: Statement[] } }>;
  return policies.flatMap((policy) => policy.PolicyDocument.Statement);
}

const actionsOf = (statement: Statement) => [statement.Action].flat();
const asJson = (value: unknown) => JSON.stringify(value);

describe('deploy/pollers.yml packaged offline by osls', () => {
  it('bundles each poller as its own function with its own role', () => {
    for (const [prefix, name] of Object.entries(FUNCTIONS)) {
      const fn = properties(`${prefix}LambdaFunction`);
      expect(fn.Handler).toBe(`dist/${name}/index.handler`);
      expect(fn.FunctionName).toBe(`pds-bridge-ci-${name}`);
      expect(fn.Role).toEqual({ 'Fn::GetAtt': [`${prefix}Role`, 'Arn'] });
    }
  });

  it('never lets a scheduled run overlap itself, and bounds the workers, when concurrency is reserved', () => {
    const reserved = (count: number) => ({
      'Fn::If': ['ReserveConcurrency', count, { Ref: 'AWS::NoValue' }],
    });

    expect((template as { Conditions?: unknown }).Conditions).toMatchObject({
      ReserveConcurrency: { 'Fn::Equals': ['true', 'true'] },
    });
    expect(properties('PollMessagingAssetsLambdaFunction').ReservedConcurrentExecutions).toEqual(reserved(1));
    expect(properties('PollSupplierReviewsLambdaFunction').ReservedConcurrentExecutions).toEqual(reserved(1));
    expect(properties('PollSupplierReviewsWorkerLambdaFunction').ReservedConcurrentExecutions).toEqual(
      reserved(4),
    );
  });

  it('routes each event family to its own queue with a dead-letter queue', () => {
    const assets = properties('PollMessagingAssetsLambdaFunction').Environment as {
      Variables: Record<string, unknown>;
    };
    const reviews = properties('PollSupplierReviewsLambdaFunction').Environment as {
      Variables: Record<string, unknown>;
    };
    const worker = properties('PollSupplierReviewsWorkerLambdaFunction').Environment as {
      Variables: Record<string, unknown>;
    };
    expect(assets.Variables.MESSAGING_ASSET_EVENTS_QUEUE_URL).toEqual({ Ref: 'MessagingAssetEventsQueue' });
    expect(reviews.Variables.SUPPLIER_REVIEW_EVENTS_QUEUE_URL).toEqual({ Ref: 'SupplierReviewEventsQueue' });
    expect(reviews.Variables.REVIEW_POLL_QUEUE_URL).toEqual({ Ref: 'ReviewPollQueue' });
    expect(worker.Variables.SUPPLIER_REVIEW_EVENTS_QUEUE_URL).toEqual({ Ref: 'SupplierReviewEventsQueue' });
    for (const [queue, dlq] of [
      ['MessagingAssetEventsQueue', 'MessagingAssetEventsDeadLetterQueue'],
      ['SupplierReviewEventsQueue', 'SupplierReviewEventsDeadLetterQueue'],
      ['ReviewPollQueue', 'ReviewPollDeadLetterQueue'],
    ] as const) {
      expect(
        (properties(queue).RedrivePolicy as { deadLetterTargetArn: unknown }).deadLetterTargetArn,
      ).toEqual({
        'Fn::GetAtt': [dlq, 'Arn'],
      });
      expect(properties(dlq).MessageRetentionPeriod).toBe(1209600);
    }
  });

  it('feeds the worker one chunk at a time with partial batch responses, and hides a chunk for 6 x its timeout', () => {
    const [mapping] = resourcesOfType(template, 'AWS::Lambda::EventSourceMapping')
      .map((id) => properties(id))
      .filter((mapping) => asJson(mapping.EventSourceArn).includes('ReviewPollQueue'));
    expect(mapping).toMatchObject({ BatchSize: 1, FunctionResponseTypes: ['ReportBatchItemFailures'] });
    const timeout = properties('PollSupplierReviewsWorkerLambdaFunction').Timeout as number;
    expect(properties('ReviewPollQueue').VisibilityTimeout).toBeGreaterThanOrEqual(6 * timeout);
  });

  it('schedules both pollers with EventBridge Scheduler, a retry policy and a dead-letter queue', () => {
    const assets = properties('PollMessagingAssetsSchedule');
    const reviews = properties('PollSupplierReviewsSchedule');
    expect(assets.ScheduleExpression).toBe('rate(2 minutes)');
    expect(reviews.ScheduleExpression).toBe('rate(15 minutes)');
    for (const [schedule, fn] of [
      [assets, 'PollMessagingAssetsLambdaFunction'],
      [reviews, 'PollSupplierReviewsLambdaFunction'],
    ] as const) {
      expect(schedule.FlexibleTimeWindow).toEqual({ Mode: 'OFF' });
      expect(schedule).toMatchObject({
        Target: {
          Arn: { 'Fn::GetAtt': [fn, 'Arn'] },
          RetryPolicy: { MaximumRetryAttempts: 3 },
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': ['PollerScheduleDeadLetterQueue', 'Arn'] } },
        },
      });
    }
  });

  it('audits the messaging assets daily by default through the same function, report-only when auditApply=false', () => {
    const audit = properties('PollMessagingAssetsAuditSchedule');
    expect(audit.ScheduleExpression).toBe('rate(1 day)');
    expect(audit).toMatchObject({
      Target: {
        Arn: { 'Fn::GetAtt': ['PollMessagingAssetsLambdaFunction', 'Arn'] },
        RoleArn: { 'Fn::GetAtt': ['PollMessagingAssetsScheduleRole', 'Arn'] },
        RetryPolicy: { MaximumRetryAttempts: 3 },
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': ['PollerScheduleDeadLetterQueue', 'Arn'] } },
      },
    });
    expect(JSON.parse((audit.Target as { Input: string }).Input)).toMatchObject({ mode: 'audit' });
    const variables = (properties('PollMessagingAssetsLambdaFunction').Environment as { Variables: object })
      .Variables;
    expect(variables).toMatchObject({ POLL_AUDIT_APPLY: 'false', POLL_LISTING_PAGING: 'auto' });
  });

  it('lets each schedule invoke exactly its own function', () => {
    for (const [role, fn] of [
      ['PollMessagingAssetsScheduleRole', 'PollMessagingAssetsLambdaFunction'],
      ['PollSupplierReviewsScheduleRole', 'PollSupplierReviewsLambdaFunction'],
    ] as const) {
      expect(asJson(properties(role).AssumeRolePolicyDocument)).toContain('scheduler.amazonaws.com');
      const statements = statementsOf(role);
      const invoke = statements.filter((statement) => actionsOf(statement).includes('lambda:InvokeFunction'));
      expect(invoke).toHaveLength(1);
      expect(invoke[0]?.Resource).toEqual({ 'Fn::GetAtt': [fn, 'Arn'] });
      expect(statements.flatMap(actionsOf).sort()).toEqual(['lambda:InvokeFunction', 'sqs:SendMessage']);
    }
  });

  it('grants each function only what it touches, and never a wildcard', () => {
    const roles = [
      'PollMessagingAssetsRole',
      'PollSupplierReviewsRole',
      'PollSupplierReviewsWorkerRole',
      'PollMessagingAssetsScheduleRole',
      'PollSupplierReviewsScheduleRole',
    ];
    for (const role of roles) {
      for (const statement of statementsOf(role)) {
        expect(
          actionsOf(statement).some((action) => action.includes('*')),
          `${role} ${statement.Sid}`,
        ).toBe(false);
        expect(asJson(statement.Resource), `${role} ${statement.Sid}`).not.toBe('"*"');
      }
    }
    for (const [prefix, name] of Object.entries(FUNCTIONS)) {
      const logs = statementsOf(`${prefix}Role`).find((statement) =>
        actionsOf(statement).includes('logs:PutLogEvents'),
      );
      expect(asJson(logs?.Resource)).toContain(`log-group:/aws/lambda/pds-bridge-ci-${name}:*`);
    }
    const assetState = statementsOf('PollMessagingAssetsRole').find(
      (statement) => statement.Sid === 'Checkpoint',
    );
    expect(asJson(assetState?.Resource)).toContain('checkpoints/messaging-assets.json');
    const sends = (role: string) =>
      statementsOf(role)
        .filter((statement) => actionsOf(statement).includes('sqs:SendMessage'))
        .flatMap((statement) => [statement.Resource].flat());
    // Its events, the confirmation ledger's (shared queue), the republication a resend request
    // queues (REPUBLISH_ON_RESEND_REQUEST), and (Lambda, with this role) the record of a failed
    // scheduled run.
    expect(sends('PollMessagingAssetsRole')).toEqual([
      { 'Fn::GetAtt': ['MessagingAssetEventsQueue', 'Arn'] },
      { 'Fn::GetAtt': ['EventsQueue', 'Arn'] },
      { 'Fn::GetAtt': ['PublicationQueue', 'Arn'] },
      { 'Fn::GetAtt': ['PollerFailedRunsQueue', 'Arn'] },
    ]);
    expect(sends('PollSupplierReviewsWorkerRole')).toEqual([
      { 'Fn::GetAtt': ['SupplierReviewEventsQueue', 'Arn'] },
      { 'Fn::GetAtt': ['EventsQueue', 'Arn'] },
    ]);
  });

  it('exports the URL and ARN of every queue it adds', () => {
    for (const queue of [
      'MessagingAssetEventsQueue',
      'MessagingAssetEventsDeadLetterQueue',
      'SupplierReviewEventsQueue',
      'SupplierReviewEventsDeadLetterQueue',
      'ReviewPollQueue',
      'ReviewPollDeadLetterQueue',
      'PollerScheduleDeadLetterQueue',
      'PollerFailedRunsQueue',
    ]) {
      expect(template.Outputs?.[`${queue}Url`]?.Value).toEqual({ Ref: queue });
      expect(template.Outputs?.[`${queue}Arn`]?.Value).toEqual({ 'Fn::GetAtt': [queue, 'Arn'] });
    }
  });
});
