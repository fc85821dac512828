/**
 * The deployer's policy in docs/deployment.md ("Deployer permissions") covers the packaged template:
 * for each resource type the template holds, every action CloudFormation needs to create, change and
 * delete it is allowed; a type with no entry below fails, naming it, so a resource type a change adds
 * cannot ship without the permissions its deployer needs. No statement grants `*` or a whole service.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type CloudFormationTemplate, packageService } from '../helpers/serverless.ts';

const root = path.resolve(import.meta.dirname, '../..');

/** What CloudFormation calls, on the deployer's credentials, to create, update and delete each type. */
const ACTIONS_BY_TYPE: Readonly<Record<string, readonly string[]>> = {
  'AWS::ApiGatewayV2::Api': ['apigateway:POST', 'apigateway:GET', 'apigateway:PATCH', 'apigateway:DELETE'],
  'AWS::ApiGatewayV2::Integration': [
    'apigateway:POST',
    'apigateway:GET',
    'apigateway:PATCH',
    'apigateway:DELETE',
  ],
  'AWS::ApiGatewayV2::Route': ['apigateway:POST', 'apigateway:GET', 'apigateway:PATCH', 'apigateway:DELETE'],
  'AWS::ApiGatewayV2::Stage': [
    'apigateway:POST',
    'apigateway:GET',
    'apigateway:PATCH',
    'apigateway:DELETE',
    'logs:CreateLogDelivery',
    'logs:DeleteLogDelivery',
    'logs:GetLogDelivery',
    'logs:UpdateLogDelivery',
    'logs:ListLogDeliveries',
  ],
  'AWS::CloudWatch::Alarm': [
    'cloudwatch:PutMetricAlarm',
    'cloudwatch:DescribeAlarms',
    'cloudwatch:DeleteAlarms',
  ],
  'AWS::CloudWatch::Dashboard': [
    'cloudwatch:PutDashboard',
    'cloudwatch:GetDashboard',
    'cloudwatch:DeleteDashboards',
  ],
  'AWS::Events::Archive': [
    'events:CreateArchive',
    'events:DescribeArchive',
    'events:UpdateArchive',
    'events:DeleteArchive',
  ],
  'AWS::Events::EventBus': ['events:CreateEventBus', 'events:DescribeEventBus', 'events:DeleteEventBus'],
  // The bus's resource policy (only the bridge's roles may put its source).
  'AWS::Events::EventBusPolicy': [
    'events:PutPermission',
    'events:RemovePermission',
    'events:DescribeEventBus',
  ],
  'AWS::Events::Rule': [
    'events:PutRule',
    'events:DescribeRule',
    'events:DeleteRule',
    'events:PutTargets',
    'events:RemoveTargets',
  ],
  'AWS::IAM::ManagedPolicy': [
    'iam:CreatePolicy',
    'iam:GetPolicy',
    'iam:CreatePolicyVersion',
    'iam:DeletePolicyVersion',
    'iam:ListPolicyVersions',
    'iam:DeletePolicy',
  ],
  // an inline policy attached to roles the stack creates (webhook delivery's grants on the other roles)
  'AWS::IAM::Policy': ['iam:PutRolePolicy', 'iam:GetRolePolicy', 'iam:DeleteRolePolicy'],
  'AWS::IAM::Role': [
    'iam:CreateRole',
    'iam:GetRole',
    'iam:PutRolePolicy',
    'iam:DeleteRolePolicy',
    'iam:AttachRolePolicy',
    'iam:DetachRolePolicy',
    'iam:DeleteRole',
    'iam:PassRole',
  ],
  // the alarm topic's customer-managed key (deploy/monitoring.yml)
  'AWS::KMS::Key': [
    'kms:CreateKey',
    'kms:DescribeKey',
    'kms:PutKeyPolicy',
    'kms:GetKeyPolicy',
    'kms:EnableKeyRotation',
    'kms:GetKeyRotationStatus',
    'kms:ScheduleKeyDeletion',
  ],
  'AWS::Lambda::EventInvokeConfig': [
    'lambda:PutFunctionEventInvokeConfig',
    'lambda:UpdateFunctionEventInvokeConfig',
    'lambda:DeleteFunctionEventInvokeConfig',
  ],
  'AWS::Lambda::EventSourceMapping': [
    'lambda:CreateEventSourceMapping',
    'lambda:GetEventSourceMapping',
    'lambda:UpdateEventSourceMapping',
    'lambda:DeleteEventSourceMapping',
  ],
  'AWS::Lambda::Function': [
    'lambda:CreateFunction',
    'lambda:GetFunction',
    'lambda:UpdateFunctionCode',
    'lambda:UpdateFunctionConfiguration',
    'lambda:DeleteFunction',
    'iam:PassRole',
  ],
  'AWS::Lambda::Permission': ['lambda:AddPermission', 'lambda:RemovePermission', 'lambda:GetPolicy'],
  'AWS::Lambda::Version': ['lambda:PublishVersion', 'lambda:ListVersionsByFunction'],
  'AWS::Logs::LogGroup': [
    'logs:CreateLogGroup',
    'logs:PutRetentionPolicy',
    'logs:DescribeLogGroups',
    'logs:DeleteLogGroup',
  ],
  'AWS::S3::Bucket': [
    's3:CreateBucket',
    's3:PutBucketVersioning',
    's3:PutEncryptionConfiguration',
    's3:PutBucketPublicAccessBlock',
    's3:PutLifecycleConfiguration',
    's3:PutBucketNotification',
    's3:DeleteBucket',
    's3:PutObject',
  ],
  'AWS::S3::BucketPolicy': ['s3:PutBucketPolicy', 's3:GetBucketPolicy', 's3:DeleteBucketPolicy'],
  'AWS::Scheduler::Schedule': [
    'scheduler:CreateSchedule',
    'scheduler:GetSchedule',
    'scheduler:UpdateSchedule',
    'scheduler:DeleteSchedule',
    'iam:PassRole',
  ],
  'AWS::SecretsManager::Secret': [
    'secretsmanager:CreateSecret',
    'secretsmanager:DescribeSecret',
    'secretsmanager:UpdateSecret',
    'secretsmanager:DeleteSecret',
  ],
  'AWS::SNS::Subscription': ['sns:Subscribe', 'sns:Unsubscribe', 'sns:GetSubscriptionAttributes'],
  'AWS::SNS::Topic': [
    'sns:CreateTopic',
    'sns:GetTopicAttributes',
    'sns:SetTopicAttributes',
    'sns:DeleteTopic',
  ],
  'AWS::SNS::TopicPolicy': ['sns:SetTopicAttributes', 'sns:GetTopicAttributes'],
  'AWS::SQS::Queue': [
    'sqs:CreateQueue',
    'sqs:GetQueueAttributes',
    'sqs:SetQueueAttributes',
    'sqs:DeleteQueue',
  ],
  'AWS::SQS::QueuePolicy': ['sqs:SetQueueAttributes', 'sqs:GetQueueAttributes'],
};

/** Every stack needs these, whatever it holds. */
const STACK_ACTIONS = [
  'cloudformation:CreateStack',
  'cloudformation:UpdateStack',
  'cloudformation:DeleteStack',
  'cloudformation:DescribeStacks',
  'cloudformation:DescribeStackEvents',
  'cloudformation:ListStackResources',
  'cloudformation:ValidateTemplate',
];

interface Statement {
  Sid?: string;
  Effect: string;
  Action: string | string[];
  Resource: string | string[];
}

/** The JSON block of the "Deployer permissions" section. */
function documentedPolicy(markdown: string): { Statement: Statement[] } {
  const start = markdown.indexOf('\n## Deployer permissions');
  if (start === -1) throw new Error('docs/deployment.md has no "## Deployer permissions" section');
  const block = /```json\n([\s\S]*?)\n```/.exec(markdown.slice(start));
  if (!block?.[1]) throw new Error('the "Deployer permissions" section has no ```json block');
  return JSON.parse(block[1]) as { Statement: Statement[] };
}

const asList = (value: string | string[]) => (Array.isArray(value) ? value : [value]);

/** True when an allowing statement names the action (IAM action names are case-insensitive). */
function allowed(statements: readonly Statement[], action: string): boolean {
  return statements.some(
    (statement) =>
      statement.Effect === 'Allow' &&
      asList(statement.Action).some((granted) => {
        const pattern = new RegExp(
          `^${granted.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`,
          'i',
        );
        return pattern.test(action);
      }),
  );
}

/** The actions a template needs that the statements do not allow, with the resource type needing each. */
function uncovered(template: CloudFormationTemplate, statements: readonly Statement[]): string[] {
  const types = [...new Set(Object.values(template.Resources).map((resource) => resource.Type))].sort();
  const missing: string[] = [];
  for (const type of types) {
    const actions = ACTIONS_BY_TYPE[type];
    if (!actions) {
      missing.push(
        `${type}: no deployer permissions known; add its actions to docs/deployment.md and to this test`,
      );
      continue;
    }
    for (const action of actions) if (!allowed(statements, action)) missing.push(`${type}: ${action}`);
  }
  for (const action of STACK_ACTIONS) if (!allowed(statements, action)) missing.push(`stack: ${action}`);
  return missing;
}

let template: CloudFormationTemplate;
let statements: Statement[];

beforeAll(async () => {
  statements = documentedPolicy(await readFile(path.join(root, 'docs/deployment.md'), 'utf8')).Statement;
  // With an alarm address and a created event bus, so the optional subscription, bus and archive are
  // in the template too.
  template = await packageService([
    '--param',
    'alarmEmail=ops@acme.example',
    '--param',
    'eventBus=create',
    '--param',
    'eventDestinations=both',
  ]);
}, 240_000);

describe('the deployer policy of docs/deployment.md', () => {
  it('allows every action CloudFormation needs for each resource type of the packaged template', () => {
    expect(uncovered(template, statements)).toEqual([]);
  });

  it('grants no action on everything: no "*" and no whole service', () => {
    const broad = statements.flatMap((statement) =>
      asList(statement.Action).filter((action) => action === '*' || /^[a-z0-9-]+:\*$/i.test(action)),
    );
    expect(broad).toEqual([]);
    expect(statements.every((statement) => statement.Effect === 'Allow' && statement.Sid)).toBe(true);
  });

  it('reports a resource type it does not cover, and an action a statement lost', () => {
    const withQueueTypeOnly: CloudFormationTemplate = {
      Resources: { Q: { Type: 'AWS::SQS::Queue' }, X: { Type: 'AWS::Kinesis::Stream' } },
    };
    const withoutDeleteQueue = statements.map((statement) => ({
      ...statement,
      Action: asList(statement.Action).filter((action) => action !== 'sqs:DeleteQueue'),
    }));

    expect(uncovered(withQueueTypeOnly, withoutDeleteQueue)).toEqual([
      'AWS::Kinesis::Stream: no deployer permissions known; add its actions to docs/deployment.md and to this test',
      'AWS::SQS::Queue: sqs:DeleteQueue',
    ]);
  });
});
