/**
 * The whole packaged CloudFormation template (osls package, offline): every resource, every IAM
 * policy, an alarm on every dead-letter queue, outputs for every queue, the operator parameters, and
 * the function zips with their source maps. The per-part tests (serverless-<part>.test.ts) look at
 * each part's details; this one checks what must hold across all of them, so a queue, policy or
 * parameter added later is checked without anyone remembering to.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CloudFormationTemplate,
  deadLetterQueues,
  dig,
  type PackagedService,
  packageServiceWithArtifacts,
  policyProblems,
  policyStatements,
  referencedId,
  resourcesOfType,
} from '../helpers/serverless.ts';

const root = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

/** Every operator parameter with a non-default value, and where it must land in the template. */
const PARAMETERS = {
  pdsBaseUrl: 'https://pds.acme.test',
  dropBucket: 'acme-drops',
  ingestPrefix: 'incoming/',
  ingestSuffixes: '.csv,.zip',
  messagingAssetsRate: 'rate(2 minutes)',
  messagingAssetsAuditRate: 'rate(12 hours)',
  auditApply: 'false',
  pollListingPaging: 'off',
  supplierReviewsRate: 'rate(1 hour)',
  pollFirstRun: 'backlog',
  pollConcurrency: '4',
  publicationMaxKeys: '500',
  publicationMaxAttempts: '3',
  channelsCacheSeconds: '120',
  watchTtlDays: '7',
  alarmEmail: 'ops@example.com',
  ingestAgeAlarmSeconds: '1800',
  reserveConcurrency: 'true',
  apiThrottleBurst: '20',
  apiThrottleRate: '10',
  apiErrorsAlarmCount: '3',
  apiLatencyAlarmMs: '2000',
  confirmationDeadlineHours: '24',
  confirmationRetentionDays: '30',
  dataPoolGlns: '0614141000029,0614141000036',
  republishOnResendRequest: 'true',
  confirmationsOverdueAlarmCount: '25',
  webhookTimeoutMs: '5000',
  webhookMainLaneMs: '1500',
  webhookDisableAfterHours: '48',
  webhookRotationOverlapHours: '12',
  webhookRetentionDays: '7',
  operatorRole: 'ops/pds-operators',
  xmlMaxBytes: '5242880',
  xmlMaxDepth: '50',
  xmlMaxElements: '100000',
  xmlMaxAttributes: '100000',
  eventBus: 'acme-events',
  eventDestinations: 'sqs,publication=both',
  eventArchiveRetentionDays: '90',
} as const;

let defaults: PackagedService;
let everything: PackagedService;
let bundleDir = '';

beforeAll(async () => {
  defaults = await packageServiceWithArtifacts();
  everything = await packageServiceWithArtifacts([
    '--stage',
    'prod',
    '--region',
    'us-east-1',
    ...Object.entries(PARAMETERS).flatMap(([name, value]) => ['--param', `${name}=${value}`]),
  ]);
  // Other test files may rebuild dist/ later: keep a copy of the bundles this run packaged.
  bundleDir = await mkdtemp(path.join(tmpdir(), 'pds-bridge-bundles-'));
  for (const name of await handlerNames()) {
    await cp(path.join(root, 'dist', name), path.join(bundleDir, name), { recursive: true });
  }
}, 240_000);

afterAll(async () => {
  if (bundleDir) await rm(bundleDir, { recursive: true, force: true });
});

type Json = Record<string, unknown>;

function props(template: CloudFormationTemplate, id: string): Json {
  const resource = template.Resources[id];
  if (!resource) throw new Error(`${id} is not in the template`);
  return resource.Properties ?? {};
}

function envOf(template: CloudFormationTemplate, functionId: string): Json {
  return dig(props(template, functionId), 'Environment', 'Variables') as Json;
}

/**
 * What a `Ref` in a function's environment resolves to once deployed, in the right shape: a queue
 * URL, a bucket name, a secret ARN.
 */
function deployedValue(template: CloudFormationTemplate, value: unknown): string {
  if (typeof value === 'string') return value;
  // EVENT_BUS_NAME: the created bus, the existing one named, or blank (deploy/eventbridge.yml).
  const branches = (value as { 'Fn::If'?: [string, unknown, unknown] } | null)?.['Fn::If'];
  if (branches) {
    const [condition, whenTrue, whenFalse] = branches;
    const holds = (template.Conditions?.[condition] ?? {}) as Record<string, [unknown, unknown]>;
    const equals =
      holds['Fn::Equals'] ??
      (holds['Fn::Not'] as unknown as Array<Record<string, [unknown, unknown]>>)?.[0]?.['Fn::Equals'];
    const same = equals !== undefined && equals[0] === equals[1];
    const taken = 'Fn::Not' in holds ? !same : same;
    return deployedValue(template, taken ? whenTrue : whenFalse);
  }
  const id = referencedId(value) ?? '';
  switch (template.Resources[id]?.Type) {
    case 'AWS::SQS::Queue':
      return `https://sqs.eu-central-1.amazonaws.com/123456789012/${id.toLowerCase()}`;
    case 'AWS::S3::Bucket':
      return `${id.toLowerCase()}-123456789012`;
    case 'AWS::SecretsManager::Secret':
      return `arn:aws:secretsmanager:eu-central-1:123456789012:secret:${id}-AbCdEf`;
    case 'AWS::Events::EventBus':
      return `pds-bridge-dev-${id.toLowerCase()}`;
    default:
      throw new Error(`no deployed value for ${JSON.stringify(value)} in a function's environment`);
  }
}

/** `packages/bridge/functions/poll-supplier-reviews.ts` → `PollSupplierReviews` (osls's logical id prefix). */
const pascal = (name: string) =>
  name.replace(/(^|-)([a-z0-9])/g, (_match, _dash, letter: string) => letter.toUpperCase());

async function handlerNames(): Promise<string[]> {
  return (await readdir(path.join(root, 'packages', 'bridge', 'functions')))
    .filter((file) => file.endsWith('.ts'))
    .map((file) => file.slice(0, -'.ts'.length))
    .sort();
}

describe('policyProblems', () => {
  const templateWith = (statement: Json, extra: Json = {}): CloudFormationTemplate => ({
    Resources: {
      SomeRole: {
        Type: 'AWS::IAM::Role',
        Properties: { Policies: [{ PolicyName: 'p', PolicyDocument: { Statement: [statement] } }], ...extra },
      },
    },
  });

  it('flags a wildcard action on a wildcard resource, in any spelling', () => {
    const problems = [
      { Effect: 'Allow', Action: '*', Resource: '*' },
      { Effect: 'Allow', Action: ['sqs:SendMessage', 's3:*'], Resource: ['arn:aws:s3:::*'] },
      {
        Effect: 'Allow',
        Action: 'sqs:*',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a CloudFormation Fn::Sub template
        Resource: { 'Fn::Sub': 'arn:${AWS::Partition}:sqs:${AWS::Region}:${AWS::AccountId}:*' },
      },
    ].map((statement) => policyProblems(templateWith(statement)));

    for (const found of problems) expect(found).toEqual([expect.stringContaining('SomeRole policy p')]);
  });

  it("flags a wildcard action or any principal in a key policy, but the account's own administration", () => {
    // prepare
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a CloudFormation Fn::Sub template
    const root = { 'Fn::Sub': 'arn:${AWS::Partition}:iam::${AWS::AccountId}:root' };
    const administration = {
      Sid: 'AccountAdministersThroughIam',
      Effect: 'Allow',
      Principal: { AWS: root },
      Action: 'kms:*',
      Resource: '*',
    };
    const keyWith = (statement: Json): CloudFormationTemplate => ({
      Resources: {
        SomeKey: { Type: 'AWS::KMS::Key', Properties: { KeyPolicy: { Statement: [statement] } } },
      },
    });

    // act
    const found = [
      administration,
      { ...administration, Sid: 'Other' },
      { ...administration, Principal: { Service: 'sns.amazonaws.com' } },
      { ...administration, Action: ['kms:Decrypt', 'kms:*'] },
      { Effect: 'Allow', Principal: { AWS: '*' }, Action: 'kms:Decrypt', Resource: '*' },
      { Effect: 'Allow', Principal: '*', Action: 'kms:Decrypt', Resource: '*' },
      {
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: 'kms:Decrypt',
        Resource: '*',
      },
    ].map((statement) => policyProblems(keyWith(statement)));

    // assess
    expect(found).toEqual([
      [],
      ['SomeKey key policy (Other) grants kms:* on the key'],
      ['SomeKey key policy (AccountAdministersThroughIam) grants kms:* on the key'],
      ['SomeKey key policy (AccountAdministersThroughIam) grants kms:Decrypt, kms:* on the key'],
      ['SomeKey key policy allows any principal'],
      ['SomeKey key policy allows any principal'],
      [],
    ]);
  });

  it('flags any action on a wildcard resource, NotAction, and managed policies', () => {
    expect(
      policyProblems(templateWith({ Effect: 'Allow', Action: 's3:PutObject', Resource: '*' })),
    ).toHaveLength(1);
    expect(
      policyProblems(templateWith({ Effect: 'Allow', NotAction: 'iam:*', Resource: 'arn:aws:s3:::b' })),
    ).toHaveLength(1);
    expect(
      policyProblems(
        templateWith(
          { Effect: 'Allow', Action: 's3:GetObject', Resource: 'arn:aws:s3:::b/*' },
          { ManagedPolicyArns: ['arn:aws:iam::aws:policy/AdministratorAccess'] },
        ),
      ),
    ).toEqual([expect.stringContaining('managed policies')]);
  });

  it('accepts PutMetricData on * only when a namespace condition scopes it, and any Deny', () => {
    const putMetricData = { Effect: 'Allow', Action: 'cloudwatch:PutMetricData', Resource: '*' };

    expect(policyProblems(templateWith(putMetricData))).toHaveLength(1);
    expect(
      policyProblems(
        templateWith({
          ...putMetricData,
          Condition: { StringEquals: { 'cloudwatch:namespace': 'PdsBridge' } },
        }),
      ),
    ).toEqual([]);
    expect(policyProblems(templateWith({ Effect: 'Deny', Action: '*', Resource: '*' }))).toEqual([]);
  });
});

describe('serverless template: the whole stack', () => {
  it('contains exactly the resources of the bridge', () => {
    const { template } = defaults;
    const census: Record<string, string[]> = {};
    for (const [id, resource] of Object.entries(template.Resources)) {
      if (resource.Type === 'AWS::Lambda::Version') continue;
      census[resource.Type] = [...(census[resource.Type] ?? []), id].sort();
    }
    const functionIds = [
      'Api',
      'Ingest',
      'PollMessagingAssets',
      'PollSupplierReviews',
      'PollSupplierReviewsWorker',
      'PublishWorker',
      'WebhookDelivery',
    ];

    expect(census).toEqual({
      'AWS::ApiGatewayV2::Api': ['HttpApi'],
      'AWS::ApiGatewayV2::Integration': ['HttpApiIntegrationApi'],
      'AWS::ApiGatewayV2::Route': expect.any(Array),
      'AWS::ApiGatewayV2::Stage': ['HttpApiStage'],
      'AWS::CloudWatch::Alarm': [
        ...functionIds.flatMap((id) => [`${id}FunctionErrorsAlarm`, `${id}FunctionThrottlesAlarm`]),
        'ApiLatencyAlarm',
        'ApiServerErrorsAlarm',
        'AssetsEmittedAsFailedAlarm',
        'AssetsFailingAlarm',
        'AuditGapsFoundAlarm',
        'ConfirmationsOverdueAlarm',
        'EventsDeadLetterQueueAlarm',
        'EventsUnpublishedAlarm',
        'IngestDeadLetterQueueAlarm',
        'IngestFailedAlarm',
        'IngestQueueAgeAlarm',
        'MessagingAssetEventsDeadLetterQueueAlarm',
        'PollMessagingAssetsStoppedAlarm',
        'PollSupplierReviewsStoppedAlarm',
        'PollerFailedRunsQueueAlarm',
        'PollerScheduleDeadLetterQueueAlarm',
        'PublicationDeadLetterQueueAlarm',
        'PublicationsFailedAlarm',
        'ReviewChunkKeysFailingAlarm',
        'ReviewChunkReviewsEmittedAsFailedAlarm',
        'ReviewKeysFailingAlarm',
        'ReviewPollDeadLetterQueueAlarm',
        'ReviewsEmittedAsFailedAlarm',
        'SupplierReviewEventsDeadLetterQueueAlarm',
        'WebhookDeadLetterQueueAlarm',
        'WebhookEndpointsDisabledAlarm',
        'WebhookSlowDeadLetterQueueAlarm',
      ].sort(),
      'AWS::CloudWatch::Dashboard': ['Dashboard'],
      'AWS::Events::Archive': ['EventArchive'],
      'AWS::Events::EventBus': ['EventBus'],
      'AWS::Events::EventBusPolicy': ['EventBusPolicy'],
      'AWS::IAM::ManagedPolicy': ['EventBusPublishPolicy', 'TracingPolicy'],
      'AWS::IAM::Policy': ['WebhookApiPolicy', 'WebhookOfferPolicy'],
      'AWS::IAM::Role': [
        'ApiRole',
        'IngestRole',
        'PollMessagingAssetsRole',
        'PollMessagingAssetsScheduleRole',
        'PollSupplierReviewsRole',
        'PollSupplierReviewsScheduleRole',
        'PollSupplierReviewsWorkerRole',
        'PublishWorkerRole',
        'WebhookDeliveryRole',
      ],
      'AWS::Lambda::EventInvokeConfig': [
        'PollMessagingAssetsLambdaEvConf',
        'PollSupplierReviewsLambdaEvConf',
      ],
      'AWS::Lambda::EventSourceMapping': [
        'IngestEventSourceMappingSQSIngestQueue',
        'PollSupplierReviewsWorkerEventSourceMappingSQSReviewPollQueue',
        'PublishWorkerEventSourceMappingSQSPublicationQueue',
        'WebhookDeliveryEventSourceMappingSQSWebhookQueue',
        'WebhookDeliveryEventSourceMappingSQSWebhookSlowQueue',
      ],
      'AWS::Lambda::Function': functionIds.map((id) => `${id}LambdaFunction`),
      'AWS::Lambda::Permission': ['ApiLambdaPermissionHttpApi'],
      'AWS::Logs::LogGroup': [...functionIds.map((id) => `${id}LogGroup`), 'HttpApiLogGroup'].sort(),
      'AWS::S3::Bucket': ['DropBucket', 'ServerlessDeploymentBucket', 'StateBucket'],
      'AWS::S3::BucketPolicy': ['DropBucketPolicy', 'ServerlessDeploymentBucketPolicy', 'StateBucketPolicy'],
      'AWS::KMS::Key': ['AlarmTopicKey'],
      'AWS::SNS::Subscription': ['AlarmEmailSubscription'],
      'AWS::SNS::Topic': ['AlarmTopic'],
      'AWS::SNS::TopicPolicy': ['AlarmTopicPolicy'],
      'AWS::SQS::Queue': [
        'EventsDeadLetterQueue',
        'EventsQueue',
        'IngestDeadLetterQueue',
        'IngestQueue',
        'MessagingAssetEventsDeadLetterQueue',
        'MessagingAssetEventsQueue',
        'PollerFailedRunsQueue',
        'PollerScheduleDeadLetterQueue',
        'PublicationDeadLetterQueue',
        'PublicationQueue',
        'ReviewPollDeadLetterQueue',
        'ReviewPollQueue',
        'SupplierReviewEventsDeadLetterQueue',
        'SupplierReviewEventsQueue',
        'WebhookDeadLetterQueue',
        'WebhookQueue',
        'WebhookSlowDeadLetterQueue',
        'WebhookSlowQueue',
      ],
      'AWS::SQS::QueuePolicy': [
        'EventsQueuePolicy',
        'IngestQueuePolicy',
        'MessagingAssetEventsQueuePolicy',
        'SupplierReviewEventsQueuePolicy',
        'WebhookQueuePolicy',
        'WebhookSlowQueuePolicy',
      ],
      'AWS::Scheduler::Schedule': [
        'PollMessagingAssetsAuditSchedule',
        'PollMessagingAssetsSchedule',
        'PollSupplierReviewsSchedule',
      ],
      'AWS::SecretsManager::Secret': ['PdsCredentialsSecret'],
    });
  });

  it("caps each webhook lane's concurrency, the slow lane below the main one", () => {
    // arrange
    const lanes = {
      main: 'WebhookDeliveryEventSourceMappingSQSWebhookQueue',
      slow: 'WebhookDeliveryEventSourceMappingSQSWebhookSlowQueue',
    };

    // act
    const caps = Object.fromEntries(
      Object.entries(lanes).map(([lane, id]) => [
        lane,
        dig(props(defaults.template, id), 'ScalingConfig', 'MaximumConcurrency'),
      ]),
    );

    // assess: failing endpoints' timeouts (the slow lane) can hold at most 5 instances, never the
    // main lane's 10 (docs/deployment.md, "Concurrency")
    expect(caps).toEqual({ main: 10, slow: 5 });
  });

  it('deploys every handler in packages/bridge/functions/ as its own function, role and log group', async () => {
    const { template } = defaults;
    const names = await handlerNames();
    const roles = new Set<unknown>();

    expect(resourcesOfType(template, 'AWS::Lambda::Function')).toHaveLength(names.length);
    for (const name of names) {
      const id = pascal(name);
      const fn = props(template, `${id}LambdaFunction`);
      expect(fn).toMatchObject({
        FunctionName: `pds-bridge-dev-${name}`,
        Handler: `dist/${name}/index.handler`,
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
      });
      // Stacks are mapped when formatted (packages/bridge/src/lambda/source-mapped-stacks.ts), not at every cold start.
      expect(envOf(template, `${id}LambdaFunction`).NODE_OPTIONS).toBeUndefined();
      expect(props(template, `${id}LogGroup`)).toEqual({
        LogGroupName: `/aws/lambda/pds-bridge-dev-${name}`,
        RetentionInDays: 30,
      });
      const role = referencedId(fn.Role);
      expect(role).toBe(`${id}Role`);
      roles.add(role);
      const trust = JSON.stringify(props(template, role as string).AssumeRolePolicyDocument);
      expect(trust).toContain('lambda.amazonaws.com');
      const logs = policyStatements(template).filter(
        ({ where, statement }) =>
          where.startsWith(`${role} `) && JSON.stringify(statement.Action).includes('logs:'),
      );
      expect(logs.map(({ statement }) => statement.Resource)).toEqual([
        {
          'Fn::Sub': `arn:\${AWS::Partition}:logs:\${AWS::Region}:\${AWS::AccountId}:log-group:/aws/lambda/pds-bridge-dev-${name}:*`,
        },
      ]);
    }
    expect(roles.size).toBe(names.length);
  });

  it('gives every function its own service name for its logs and metrics', async () => {
    // prepare
    const names = await handlerNames();

    // act
    const services = names.map(
      (name) => envOf(defaults.template, `${pascal(name)}LambdaFunction`).POWERTOOLS_SERVICE_NAME,
    );

    // assess
    expect(services).toEqual(names.map((name) => `pds-bridge-${name}`));
    expect(new Set(services).size).toBe(names.length);
    // The same in every stage: dashboards and alarms name the dimension, not the stage.
    expect(
      names.map(
        (name) => envOf(everything.template, `${pascal(name)}LambdaFunction`).POWERTOOLS_SERVICE_NAME,
      ),
    ).toEqual(services);
  });

  it('packages each function as its bundle, its chunks and their source maps, nothing else', async () => {
    const { template, artifacts } = defaults;
    for (const name of await handlerNames()) {
      const key = dig(props(template, `${pascal(name)}LambdaFunction`), 'Code', 'S3Key') as string;
      const zip = path.posix.basename(key);
      const built = (await readdir(path.join(bundleDir, name), { recursive: true }))
        .filter((file) => file.endsWith('.mjs') || file.endsWith('.mjs.map'))
        .map((file) => `dist/${name}/${file.split(path.sep).join('/')}`);
      expect(built).toContain(`dist/${name}/index.mjs`);
      for (const file of built.filter((candidate) => candidate.endsWith('.mjs'))) {
        expect(built, `${file} has a source map`).toContain(`${file}.map`);
      }
      expect(artifacts[zip]?.slice().sort(), zip).toEqual(built.sort());
    }
  });

  it("packages without osls's scan for development dependencies, which could leave out nothing more", () => {
    // Every file is left out first and each function adds back only its bundle (the test above), so
    // the scan (npm ls and a walk of node_modules, most of the time a package took) is waste.
    expect(defaults.package).toMatchObject({
      individually: true,
      excludeDevDependencies: false,
      patterns: ['!**'],
    });
  });

  it('starts every bundle with the environment the template gives its function', async () => {
    for (const name of await handlerNames()) {
      const variables = envOf(defaults.template, `${pascal(name)}LambdaFunction`);
      const env = Object.fromEntries(
        Object.entries(variables).map(([key, value]) => [key, deployedValue(defaults.template, value)]),
      );
      const url = pathToFileURL(path.join(bundleDir, name, 'index.mjs')).href;
      // Module scope loads the configuration: a variable the template forgot fails the cold start.
      const script = [
        `try { await import(${JSON.stringify(url)}); } catch (error) {`,
        "  process.stdout.write('failed: ' + error.message);",
        '  process.exit(1);',
        '}',
        "process.stdout.write('started');",
        'process.exit(0);',
      ].join('\n');
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
        env: { PATH: process.env.PATH, AWS_REGION: 'eu-central-1', ...env },
      }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error) }));

      expect(stdout, name).toBe('started');
    }
  });

  it('grants no wildcard action on a wildcard resource, nor any write on one, in any policy', () => {
    for (const { template } of [defaults, everything]) {
      const statements = policyStatements(template);

      expect(policyProblems(template)).toEqual([]);
      // The walk reaches every kind of policy in the stack (roles, queue, bucket and topic policies).
      expect(new Set(statements.map(({ where }) => where.split(' ')[0]))).toEqual(
        new Set([
          ...resourcesOfType(template, 'AWS::IAM::Role'),
          'IngestQueuePolicy',
          'EventsQueuePolicy',
          'MessagingAssetEventsQueuePolicy',
          'SupplierReviewEventsQueuePolicy',
          'WebhookQueuePolicy',
          'WebhookSlowQueuePolicy',
          'StateBucketPolicy',
          'DropBucketPolicy',
          'ServerlessDeploymentBucketPolicy',
          'AlarmTopicPolicy',
          'AlarmTopicKey',
          'TracingPolicy',
          'WebhookOfferPolicy',
          'WebhookApiPolicy',
          'EventBusPublishPolicy',
          'EventBusPolicy',
        ]),
      );
    }
  });

  it("lets only the roles that publish put the bridge's source on a bus it creates", () => {
    const { template } = defaults;
    const policy = props(template, 'EventBusPolicy');
    const publishers = (props(template, 'EventBusPublishPolicy').Roles as unknown[]).map(referencedId);
    const allowed = dig(policy, 'Statement', 'Condition', 'ArnNotLike', 'aws:PrincipalArn') as unknown[];

    expect(template.Resources.EventBusPolicy?.Condition).toBe('EventBusCreated');
    expect(policy.Statement).toMatchObject({
      Effect: 'Deny',
      Principal: '*',
      Action: 'events:PutEvents',
      Condition: { StringLike: { 'events:source': 'urn:pds-bridge*' } },
    });
    expect(allowed.map(referencedId).sort()).toEqual([...publishers].sort());
  });

  it("holds one wildcard action in the alarm topic key's policy: the account's administration of the key", () => {
    const { template } = defaults;
    const wildcards = policyStatements(template)
      .filter(({ where }) => where.endsWith(' key policy'))
      .filter(({ statement }) => [statement.Action ?? []].flat().some((action) => action.endsWith(':*')));

    expect(wildcards.map(({ where, statement }) => `${where} (${statement.Sid})`)).toEqual([
      'AlarmTopicKey key policy (AccountAdministersThroughIam)',
    ]);
  });

  it('never lets a function role use a partial wildcard action or CloudWatch (metrics go out as EMF log lines)', () => {
    const { template } = defaults;
    for (const { where, statement } of policyStatements(template)) {
      if (!where.endsWith('Role') && !/Role policy/.test(where)) continue;
      for (const action of [statement.Action ?? []].flat()) {
        expect(action, where).not.toContain('*');
        expect(action, where).not.toMatch(/^cloudwatch:/);
      }
    }
  });

  it('alarms on the depth of every dead-letter queue, into the one alarm topic', () => {
    for (const { template } of [defaults, everything]) {
      const dlqs = deadLetterQueues(template);
      const alarms = resourcesOfType(template, 'AWS::CloudWatch::Alarm').map((id) => props(template, id));

      for (const dlq of dlqs) {
        const depth = alarms.filter(
          (alarm) =>
            alarm.MetricName === 'ApproximateNumberOfMessagesVisible' &&
            referencedId(dig(alarm, 'Dimensions', '0', 'Value')) === dlq,
        );
        expect(depth, `alarms on ${dlq}`).toHaveLength(1);
        expect(depth[0]).toMatchObject({
          Namespace: 'AWS/SQS',
          Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlq, 'QueueName'] } }],
          Statistic: 'Maximum',
          Period: 300,
          EvaluationPeriods: 1,
          Threshold: 0,
          ComparisonOperator: 'GreaterThanThreshold',
          TreatMissingData: 'notBreaching',
          AlarmActions: [{ Ref: 'AlarmTopic' }],
        });
      }
      // The derivation finds at least the DLQs known today; whatever else it finds needs its alarm too.
      expect(dlqs).toEqual(
        expect.arrayContaining([
          'EventsDeadLetterQueue',
          'IngestDeadLetterQueue',
          'MessagingAssetEventsDeadLetterQueue',
          'PollerFailedRunsQueue',
          'PollerScheduleDeadLetterQueue',
          'PublicationDeadLetterQueue',
          'ReviewPollDeadLetterQueue',
          'SupplierReviewEventsDeadLetterQueue',
        ]),
      );
    }
  });

  it('alarms when the oldest drop has waited in the ingest queue longer than the threshold', () => {
    const alarm = (template: CloudFormationTemplate) => props(template, 'IngestQueueAgeAlarm');

    expect(alarm(defaults.template)).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': ['IngestQueue', 'QueueName'] } }],
      Threshold: '3600',
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: 'AlarmTopic' }],
    });
    expect(alarm(everything.template).Threshold).toBe('1800');
  });

  it('names every alarm so that the alarm topic accepts its notifications', () => {
    for (const { template, provider } of [defaults, everything]) {
      const statement = policyStatements(template).find(({ where }) => where.startsWith('AlarmTopicPolicy'));
      const pattern = dig(statement?.statement.Condition, 'ArnLike', 'aws:SourceArn') as {
        'Fn::Sub': string;
      };

      expect(statement?.statement).toMatchObject({
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: 'sns:Publish',
        Resource: { Ref: 'AlarmTopic' },
      });
      expect(pattern['Fn::Sub']).toMatch(new RegExp(`:alarm:pds-bridge-${provider.stage}-\\*$`));
      for (const id of resourcesOfType(template, 'AWS::CloudWatch::Alarm')) {
        const name = props(template, id).AlarmName as { 'Fn::Sub': string };
        expect(name['Fn::Sub'], id).toMatch(new RegExp(`^pds-bridge-${provider.stage}-`));
      }
    }
  });

  it("encrypts the alarm topic with a key of its own that this stage's alarms may use", () => {
    for (const { template, provider } of [defaults, everything]) {
      const key = props(template, 'AlarmTopicKey');
      const statements = dig(key, 'KeyPolicy', 'Statement') as Array<Record<string, unknown>>;
      const alarms = statements.find((statement) => statement.Sid === 'AlarmsOfThisStagePublish');
      const pattern = dig(alarms?.Condition, 'ArnLike', 'aws:SourceArn') as { 'Fn::Sub': string };

      // alias/aws/sns would not do: CloudWatch alarms cannot use the AWS managed key.
      expect(props(template, 'AlarmTopic').KmsMasterKeyId).toEqual({
        'Fn::GetAtt': ['AlarmTopicKey', 'Arn'],
      });
      expect(template.Resources.AlarmTopicKey?.Type).toBe('AWS::KMS::Key');
      expect(key.EnableKeyRotation).toBe(true);
      expect(alarms).toMatchObject({
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      });
      expect(pattern['Fn::Sub']).toMatch(new RegExp(`:alarm:pds-bridge-${provider.stage}-\\*$`));
      expect(dig(alarms?.Condition, 'StringEquals', 'aws:SourceAccount')).toEqual({ Ref: 'AWS::AccountId' });
    }
  });

  it('subscribes the alarm e-mail address only when one is given', () => {
    const subscription = (template: CloudFormationTemplate) => template.Resources.AlarmEmailSubscription;

    expect(subscription(defaults.template)?.Condition).toBe('AlarmsHaveEmail');
    expect(defaults.template.Conditions?.AlarmsHaveEmail).toEqual({
      'Fn::Not': [{ 'Fn::Equals': ['', ''] }],
    });
    expect(everything.template.Conditions?.AlarmsHaveEmail).toEqual({
      'Fn::Not': [{ 'Fn::Equals': ['ops@example.com', ''] }],
    });
    expect(props(everything.template, 'AlarmEmailSubscription')).toMatchObject({
      Protocol: 'email',
      Endpoint: 'ops@example.com',
      TopicArn: { Ref: 'AlarmTopic' },
    });
  });

  it('outputs the URL and ARN of every queue, the API URL, the buckets, the secret and the alarm topic', () => {
    for (const { template } of [defaults, everything]) {
      const outputs = template.Outputs ?? {};
      for (const queue of resourcesOfType(template, 'AWS::SQS::Queue')) {
        expect(outputs[`${queue}Url`]?.Value, queue).toEqual({ Ref: queue });
        expect(outputs[`${queue}Arn`]?.Value, queue).toEqual({ 'Fn::GetAtt': [queue, 'Arn'] });
      }
      for (const bucket of resourcesOfType(template, 'AWS::S3::Bucket')) {
        const named = Object.values(outputs).some((output) =>
          JSON.stringify(output.Value).includes(JSON.stringify({ Ref: bucket })),
        );
        expect(named, bucket).toBe(true);
      }
      expect(outputs.ApiUrl?.Value).toEqual({
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a CloudFormation Fn::Sub template
        'Fn::Sub': 'https://${HttpApi}.execute-api.${AWS::Region}.${AWS::URLSuffix}',
      });
      expect(outputs.PdsCredentialsSecretArn?.Value).toEqual({ Ref: 'PdsCredentialsSecret' });
      expect(outputs.AlarmTopicArn?.Value).toEqual({ Ref: 'AlarmTopic' });
    }
    expect(JSON.stringify(everything.template.Outputs?.DropBucketName?.Value)).toContain('acme-drops');
  });

  it('expires claim-check payloads after the queues give up on them, and old state versions', () => {
    const rules = dig(props(defaults.template, 'StateBucket'), 'LifecycleConfiguration', 'Rules') as Json[];

    expect(rules).toContainEqual(
      expect.objectContaining({ Prefix: 'claim-check/', ExpirationInDays: 30, Status: 'Enabled' }),
    );
    expect(30 * 86_400).toBeGreaterThan(
      props(defaults.template, 'EventsQueue').MessageRetentionPeriod as number,
    );
    expect(rules).toContainEqual(
      expect.objectContaining({ NoncurrentVersionExpiration: { NoncurrentDays: 30 } }),
    );
    // The destinations' failures by the hour: kept past the longest status window (30 days), then gone.
    expect(rules).toContainEqual(
      expect.objectContaining({ Prefix: 'publish-failures/', ExpirationInDays: 31, Status: 'Enabled' }),
    );
  });

  it('takes stage and region from the osls options, with dev in eu-central-1 by default', () => {
    expect(defaults.provider).toMatchObject({ stage: 'dev', region: 'eu-central-1' });
    expect(everything.provider).toMatchObject({ stage: 'prod', region: 'us-east-1' });
    expect(props(everything.template, 'ApiLambdaFunction').FunctionName).toBe('pds-bridge-prod-api');
    expect(JSON.stringify(props(everything.template, 'StateBucket').BucketName)).toContain('-prod');
  });

  it('puts every operator parameter where it belongs', () => {
    const t = everything.template;
    const functions = resourcesOfType(t, 'AWS::Lambda::Function');

    for (const fn of functions) expect(envOf(t, fn).PDS_BASE_URL, fn).toBe(PARAMETERS.pdsBaseUrl);
    for (const fn of functions) expect(envOf(t, fn).CONFIRMATION_DEADLINE_HOURS, fn).toBe('24');
    for (const fn of functions) expect(envOf(t, fn).CONFIRMATION_RETENTION_DAYS, fn).toBe('30');
    for (const fn of functions) expect(envOf(t, fn).DATA_POOL_GLNS, fn).toBe('0614141000029,0614141000036');
    expect(t.Conditions?.IngestCreatesDropBucket).toEqual({ 'Fn::Equals': ['acme-drops', ''] });
    expect(envOf(t, 'IngestLambdaFunction')).toMatchObject({
      INGEST_PREFIX: 'incoming/',
      INGEST_SUFFIXES: '.csv,.zip',
    });
    expect(props(t, 'PollMessagingAssetsSchedule').ScheduleExpression).toBe('rate(2 minutes)');
    expect(props(t, 'PollSupplierReviewsSchedule').ScheduleExpression).toBe('rate(1 hour)');
    expect(props(t, 'PollMessagingAssetsAuditSchedule').ScheduleExpression).toBe('rate(12 hours)');
    expect(envOf(t, 'PollMessagingAssetsLambdaFunction')).toMatchObject({
      POLL_AUDIT_APPLY: 'false',
      POLL_LISTING_PAGING: 'off',
      REPUBLISH_ON_RESEND_REQUEST: 'true',
    });
    expect(envOf(defaults.template, 'PollMessagingAssetsLambdaFunction').REPUBLISH_ON_RESEND_REQUEST).toBe(
      'false',
    );
    expect(envOf(t, 'PollMessagingAssetsLambdaFunction').POLL_FIRST_RUN).toBe('backlog');
    for (const fn of functions.filter((id) => id.startsWith('Poll'))) {
      expect(envOf(t, fn).POLL_CONCURRENCY, fn).toBe('4');
    }
    expect(envOf(t, 'ApiLambdaFunction')).toMatchObject({
      PUBLICATION_MAX_KEYS: '500',
      PUBLICATION_CHANNELS_CACHE_SECONDS: '120',
      WATCH_TTL_DAYS: '7',
    });
    expect(envOf(t, 'PublishWorkerLambdaFunction')).toMatchObject({
      PUBLICATION_MAX_ATTEMPTS: '3',
      WATCH_TTL_DAYS: '7',
    });
    expect(t.Conditions?.ReserveConcurrency).toEqual({ 'Fn::Equals': ['true', 'true'] });
    expect(dig(props(t, 'HttpApiStage'), 'DefaultRouteSettings')).toMatchObject({
      ThrottlingBurstLimit: '20',
      ThrottlingRateLimit: '10',
    });
    expect(props(t, 'ApiServerErrorsAlarm').Threshold).toBe('3');
    expect(props(t, 'ApiLatencyAlarm').Threshold).toBe('2000');
    expect(props(t, 'ConfirmationsOverdueAlarm').Threshold).toBe('25');
    expect(envOf(t, 'WebhookDeliveryLambdaFunction')).toMatchObject({
      WEBHOOK_TIMEOUT_MS: '5000',
      WEBHOOK_MAIN_LANE_MS: '1500',
      WEBHOOK_DISABLE_AFTER_HOURS: '48',
    });
    for (const fn of functions) expect(envOf(t, fn).WEBHOOK_ROTATION_OVERLAP_HOURS, fn).toBe('12');
    for (const fn of functions) expect(envOf(t, fn).EVENT_DESTINATIONS, fn).toBe('sqs,publication=both');
    // An existing bus: the name, no bus or archive of ours (they exist only with eventBus=create).
    expect(t.Conditions?.EventBusEnabled).toEqual({ 'Fn::Not': [{ 'Fn::Equals': ['acme-events', 'none'] }] });
    expect(t.Conditions?.EventBusCreated).toEqual({ 'Fn::Equals': ['acme-events', 'create'] });
    expect(props(t, 'EventArchive').RetentionDays).toBe('90');
    const webhookRules = (
      dig(props(t, 'StateBucket'), 'LifecycleConfiguration', 'Rules') as Array<{
        Prefix?: string;
        ExpirationInDays?: unknown;
      }>
    ).filter((rule) => rule.Prefix?.startsWith('webhooks/'));
    expect(webhookRules.map((rule) => [rule.Prefix, rule.ExpirationInDays])).toEqual([
      ['webhooks/events/', '7'],
      ['webhooks/event-times/', '7'],
      ['webhooks/deliveries/', '7'],
    ]);
    // The schedule's interval is the period of its poller's "stopped" alarm.
    expect(props(t, 'PollMessagingAssetsStoppedAlarm').Period).toBe(120);
    expect(props(t, 'PollSupplierReviewsStoppedAlarm').Period).toBe(3600);
  });

  it('documents every parameter the templates read, and no other', async () => {
    const sources = await Promise.all(
      ['serverless.yml', ...(await readdir(path.join(root, 'deploy'))).map((file) => `deploy/${file}`)].map(
        (file) => readFile(path.join(root, file), 'utf8'),
      ),
    );
    const used = new Set(
      sources.flatMap((source) => [...source.matchAll(/\$\{param:(\w+)/g)].map((m) => m[1])),
    );
    const docs = await readFile(path.join(root, 'docs/deployment.md'), 'utf8');
    const documented = new Set([...docs.matchAll(/^\| `--param (\w+)=/gm)].map((m) => m[1]));

    expect([...used].sort()).toEqual(Object.keys(PARAMETERS).sort());
    expect([...documented].sort()).toEqual([...used].sort());
  });
});
