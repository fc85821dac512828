/**
 * Observability and deploy safety of the packaged template (osls package, offline): the alarms
 * (per function, per scheduled poller, the HTTP API, the bridge's own failure metrics), the scheduled
 * runs' on-failure destination, the dashboard, the HTTP API's access logs and throttling, and the
 * inputs packaging refuses. Expectations are derived from the template and the code, so a function,
 * a schedule or a metric added later is checked without anyone remembering to.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { scheduleIntervalSeconds } from '../../deploy/checks.ts';
import {
  type CloudFormationTemplate,
  deadLetterQueues,
  dig,
  packageService,
  policyStatements,
  referencedId,
  resourcesOfType,
} from '../helpers/serverless.ts';

const root = path.resolve(import.meta.dirname, '../..');

type Json = Record<string, unknown>;

let template: CloudFormationTemplate;
let emitted: Set<string>;

beforeAll(async () => {
  template = await packageService();
  emitted = await metricsTheCodeRecords();
}, 180_000);

function props(id: string): Json {
  const resource = template.Resources[id];
  if (!resource) throw new Error(`${id} is not in the template`);
  return resource.Properties ?? {};
}

/**
 * The metric names the bridge records: the first argument of every `addMetric(...)` (each quoted name in
 * it, for a `cond ? 'A' : 'B'`) and the keys of every `addCounts(metrics, { ... })` table.
 */
async function metricsTheCodeRecords(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const entry of await readdir(path.join(root, 'packages', 'bridge', 'src'), {
    recursive: true,
    withFileTypes: true,
  })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const source = await readFile(path.join(entry.parentPath, entry.name), 'utf8');
    for (const [, first] of source.matchAll(/\baddMetric\(([^,]+),/g)) {
      for (const [, name] of (first ?? '').matchAll(/'(\w+)'/g)) names.add(name as string);
    }
    for (const [, table] of source.matchAll(/\baddCounts\(\s*\w+,\s*\{([^}]*)\}/g)) {
      for (const [, name] of (table ?? '').matchAll(/(\w+):/g)) names.add(name as string);
    }
  }
  return names;
}

const functions = () => resourcesOfType(template, 'AWS::Lambda::Function');
const serviceOf = (functionId: string) =>
  dig(props(functionId), 'Environment', 'Variables', 'POWERTOOLS_SERVICE_NAME') as string;
interface Alarm extends Json {
  id: string;
  Namespace?: string;
  MetricName?: string;
  Dimensions?: unknown;
}
const alarms = (): Alarm[] =>
  resourcesOfType(template, 'AWS::CloudWatch::Alarm').map((id) => ({ id, ...props(id) }));
const toTopic = { AlarmActions: [{ Ref: 'AlarmTopic' }], OKActions: [{ Ref: 'AlarmTopic' }] };

describe('alarms', () => {
  it('alarms on the Errors and the Throttles of every function, into the alarm topic', () => {
    for (const fn of functions()) {
      for (const metric of ['Errors', 'Throttles']) {
        const found = alarms().filter(
          (alarm) =>
            alarm.Namespace === 'AWS/Lambda' &&
            alarm.MetricName === metric &&
            referencedId(dig(alarm, 'Dimensions', '0', 'Value')) === fn,
        );
        expect(found, `${metric} of ${fn}`).toHaveLength(1);
        expect(found[0]).toMatchObject({
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: fn } }],
          Statistic: 'Sum',
          Threshold: 0,
          ComparisonOperator: 'GreaterThanThreshold',
          ...toTopic,
        });
      }
    }
    expect(functions()).toHaveLength(7);
  });

  it('alarms when a scheduled poller completed no run in three of its schedule intervals', () => {
    // The daily audit invokes poll-messaging-assets too; that function's heartbeat follows its poll
    // schedule, and the audit has its own alarm (AuditGapsFound).
    const isAudit = (id: string) =>
      (JSON.parse(dig(props(id), 'Target', 'Input') as string) as { mode?: string }).mode === 'audit';
    const schedules = resourcesOfType(template, 'AWS::Scheduler::Schedule').filter((id) => !isAudit(id));

    for (const schedule of schedules) {
      const target = referencedId(dig(props(schedule), 'Target', 'Arn')) as string;
      const interval = scheduleIntervalSeconds(props(schedule).ScheduleExpression as string);
      const found = alarms().filter(
        (alarm) =>
          alarm.MetricName === 'PollRunSucceeded' &&
          dig(alarm, 'Dimensions', '0', 'Value') === serviceOf(target),
      );

      expect(found, `stopped alarm of ${target}`).toHaveLength(1);
      expect(found[0]).toMatchObject({
        Namespace: 'PdsBridge',
        Dimensions: [{ Name: 'service', Value: serviceOf(target) }],
        Statistic: 'Sum',
        Period: interval,
        EvaluationPeriods: 3,
        DatapointsToAlarm: 3,
        Threshold: 1,
        ComparisonOperator: 'LessThanThreshold',
        // No data is the symptom: no run, a skipped run or a failed run records nothing.
        TreatMissingData: 'breaching',
        ...toTopic,
      });
    }
    expect(schedules.map((id) => props(id).ScheduleExpression)).toEqual([
      'rate(5 minutes)',
      'rate(15 minutes)',
    ]);
    expect(emitted).toContain('PollRunSucceeded');
  });

  it('records every failed scheduled run in a queue the poller may send to, instead of nowhere', () => {
    for (const schedule of resourcesOfType(template, 'AWS::Scheduler::Schedule')) {
      const target = referencedId(dig(props(schedule), 'Target', 'Arn')) as string;
      const configs = resourcesOfType(template, 'AWS::Lambda::EventInvokeConfig').filter(
        (id) => referencedId(props(id).FunctionName) === target,
      );
      expect(configs, target).toHaveLength(1);
      const config = props(configs[0] as string);
      const destination = referencedId(dig(config, 'DestinationConfig', 'OnFailure', 'Destination'));
      const role = referencedId(props(target).Role);
      const sends = policyStatements(template).filter(
        ({ where, statement }) =>
          where.startsWith(`${role} `) &&
          [statement.Action].flat().includes('sqs:SendMessage') &&
          [statement.Resource].flat().some((resource) => referencedId(resource) === destination),
      );

      expect(config).toMatchObject({ MaximumRetryAttempts: 0, Qualifier: '$LATEST' });
      expect(destination).toBe('PollerFailedRunsQueue');
      expect(sends, `${role} may send to ${destination}`).toHaveLength(1);
    }
    // A destination is a dead-letter queue to the DLQ-alarm test, which requires its depth alarm.
    expect(deadLetterQueues(template)).toContain('PollerFailedRunsQueue');
  });

  it("alarms on the HTTP API's 5xx answers and p99 latency", () => {
    expect(props('ApiServerErrorsAlarm')).toMatchObject({
      Namespace: 'AWS/ApiGateway',
      MetricName: '5xx',
      Dimensions: [{ Name: 'ApiId', Value: { Ref: 'HttpApi' } }],
      Statistic: 'Sum',
      Threshold: '5',
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      ...toTopic,
    });
    expect(props('ApiLatencyAlarm')).toMatchObject({
      Namespace: 'AWS/ApiGateway',
      MetricName: 'Latency',
      Dimensions: [{ Name: 'ApiId', Value: { Ref: 'HttpApi' } }],
      ExtendedStatistic: 'p99',
      Threshold: '5000',
      ComparisonOperator: 'GreaterThanThreshold',
      ...toTopic,
    });
  });

  it('alarms on the failure metrics operators had to set alarms on by hand', () => {
    const watched = alarms()
      .filter((alarm) => alarm.Namespace === 'PdsBridge' && alarm.MetricName !== 'PollRunSucceeded')
      .map((alarm) => `${alarm.MetricName} ${dig(alarm, 'Dimensions', '0', 'Value')}`);

    expect(watched.sort()).toEqual(
      [
        'AssetsEmittedAsFailed pds-bridge-poll-messaging-assets',
        'AssetsFailed pds-bridge-poll-messaging-assets',
        'AuditGapsFound pds-bridge-poll-messaging-assets',
        'ConfirmationsOverdue pds-bridge-poll-supplier-reviews',
        'EventsUnpublished pds-bridge-poll-messaging-assets',
        'IngestFailed pds-bridge-ingest',
        'KeysFailed pds-bridge-poll-supplier-reviews',
        'KeysFailed pds-bridge-poll-supplier-reviews-worker',
        'PublicationsFailed pds-bridge-publish-worker',
        'ReviewsEmittedAsFailed pds-bridge-poll-supplier-reviews',
        'ReviewsEmittedAsFailed pds-bridge-poll-supplier-reviews-worker',
        'WebhookEndpointsDisabled pds-bridge-webhook-delivery',
      ].sort(),
    );
    // "Failing for an hour": every run of the hour failed something, not one bad run.
    expect(props('AssetsFailingAlarm')).toMatchObject({ Statistic: 'Minimum', Period: 3600 });
  });

  it('alarms only on metrics the code records, of services the template deploys', () => {
    const services = new Set(functions().map(serviceOf));
    for (const alarm of alarms().filter((candidate) => candidate.Namespace === 'PdsBridge')) {
      expect(emitted, alarm.id).toContain(alarm.MetricName);
      expect(alarm.Dimensions, alarm.id).toEqual([{ Name: 'service', Value: expect.any(String) }]);
      expect(services, alarm.id).toContain(dig(alarm, 'Dimensions', '0', 'Value'));
      expect(alarm, alarm.id).toMatchObject(toTopic);
    }
  });
});

/** Metric names AWS records per namespace, for the resources this template has. */
const AWS_METRICS: Record<string, { dimension: string; type: string; names: string[] }> = {
  'AWS/SQS': {
    dimension: 'QueueName',
    type: 'AWS::SQS::Queue',
    names: ['ApproximateAgeOfOldestMessage', 'ApproximateNumberOfMessagesVisible', 'NumberOfMessagesSent'],
  },
  'AWS/Lambda': {
    dimension: 'FunctionName',
    type: 'AWS::Lambda::Function',
    names: ['Errors', 'Throttles', 'Invocations', 'Duration', 'ConcurrentExecutions'],
  },
  'AWS/ApiGateway': {
    dimension: 'ApiId',
    type: 'AWS::ApiGatewayV2::Api',
    names: ['Count', '4xx', '5xx', 'Latency', 'IntegrationLatency'],
  },
};

describe('the dashboard', () => {
  /** The body with each `${...}` of its Fn::Sub, and the references it makes. */
  const dashboard = () => {
    const text = dig(props('Dashboard'), 'DashboardBody', 'Fn::Sub') as string;
    const references = [...text.matchAll(/\$\{([^}]+)\}/g)].map((match) => match[1] as string);
    return { body: JSON.parse(text) as { widgets: Array<{ type: string; properties: Json }> }, references };
  };
  const metricsShown = () =>
    dashboard()
      .body.widgets.filter((widget) => widget.type === 'metric')
      .flatMap((widget) => widget.properties.metrics as unknown[][]);

  it('is valid JSON whose every reference names a resource of the template', () => {
    const { body, references } = dashboard();

    expect(body.widgets.length).toBeGreaterThan(10);
    for (const reference of references) {
      if (reference.startsWith('AWS::')) continue;
      expect(Object.keys(template.Resources), reference).toContain(reference.split('.')[0]);
    }
  });

  it('shows only metrics the code records or AWS records for a resource of the template', () => {
    const services = new Set(functions().map(serviceOf));
    for (const [namespace, name, dimension, value] of metricsShown()) {
      const label = `${namespace} ${name} ${value}`;
      if (namespace === 'PdsBridge') {
        expect(emitted, label).toContain(name);
        expect(dimension, label).toBe('service');
        expect(services, label).toContain(value);
        continue;
      }
      const known = AWS_METRICS[namespace as string];
      expect(known, label).toBeDefined();
      expect(known?.names, label).toContain(name);
      expect(dimension, label).toBe(known?.dimension);
      const id = /^\$\{(\w+)(?:\.QueueName)?\}$/.exec(value as string)?.[1] as string;
      expect(template.Resources[id]?.Type, label).toBe(known?.type);
    }
  });

  it("shows each flow's throughput, failures and lag, every DLQ's depth, and the PDS's latency and retries", () => {
    const shown = metricsShown().map(([namespace, name, , value]) => `${namespace} ${name} ${value}`);
    const queue = (id: string) => `\${${id}.QueueName}`;

    for (const dlq of deadLetterQueues(template)) {
      expect(shown).toContain(`AWS/SQS ApproximateNumberOfMessagesVisible ${queue(dlq)}`);
    }
    for (const source of ['IngestQueue', 'PublicationQueue', 'ReviewPollQueue', 'EventsQueue']) {
      expect(shown).toContain(`AWS/SQS ApproximateAgeOfOldestMessage ${queue(source)}`);
    }
    expect(shown).toEqual(
      expect.arrayContaining([
        'PdsBridge IngestCompleted pds-bridge-ingest',
        'PdsBridge IngestFailed pds-bridge-ingest',
        'PdsBridge AssetsEmitted pds-bridge-poll-messaging-assets',
        'PdsBridge CheckpointAgeSeconds pds-bridge-poll-messaging-assets',
        'PdsBridge ReviewsEmitted pds-bridge-poll-supplier-reviews-worker',
        'PdsBridge PublicationsPublished pds-bridge-publish-worker',
        'PdsBridge PublicationsFailed pds-bridge-publish-worker',
      ]),
    );
    // Every function that calls the PDS (webhook-delivery does not).
    for (const service of functions()
      .map(serviceOf)
      .filter((name) => name !== 'pds-bridge-webhook-delivery')) {
      expect(shown).toContain(`PdsBridge PdsLatency ${service}`);
      expect(shown).toContain(`PdsBridge PdsRetries ${service}`);
    }
  });
});

describe('the HTTP API', () => {
  it('writes an access log line per request to a log group that expires', () => {
    const stage = props('HttpApiStage');
    const format = JSON.parse(dig(stage, 'AccessLogSettings', 'Format') as string);

    expect(dig(stage, 'AccessLogSettings', 'DestinationArn')).toEqual({
      'Fn::GetAtt': ['HttpApiLogGroup', 'Arn'],
    });
    expect(props('HttpApiLogGroup')).toEqual({
      LogGroupName: '/aws/http-api/pds-bridge-dev',
      RetentionInDays: 30,
    });
    expect(format).toMatchObject({
      requestId: '$context.requestId',
      caller: '$context.identity.userArn',
      routeKey: '$context.routeKey',
      status: '$context.status',
    });
  });

  it('throttles the default route as the parameters say', () => {
    expect(dig(props('HttpApiStage'), 'DefaultRouteSettings')).toEqual({
      DetailedMetricsEnabled: false,
      ThrottlingBurstLimit: '100',
      ThrottlingRateLimit: '50',
    });
  });
});

describe('reserved concurrency', () => {
  it('reserves none by default, so the stack deploys in an account with the starting quota', () => {
    for (const fn of ['PollMessagingAssets', 'PollSupplierReviews', 'PollSupplierReviewsWorker']) {
      expect(props(`${fn}LambdaFunction`).ReservedConcurrentExecutions, fn).toEqual({
        'Fn::If': ['ReserveConcurrency', expect.any(Number), { Ref: 'AWS::NoValue' }],
      });
    }
    expect(template.Conditions?.ReserveConcurrency).toEqual({ 'Fn::Equals': ['false', 'true'] });
    for (const fn of ['Ingest', 'Api', 'PublishWorker']) {
      expect(props(`${fn}LambdaFunction`).ReservedConcurrentExecutions, fn).toBeUndefined();
    }
  });
});

describe('packaging refusals', () => {
  it('refuses, naming every fix, a stage without pdsBaseUrl, an invalid bucket stage, an unknown choice and a cron schedule', async () => {
    // act
    const failure = await packageService([
      '--stage',
      'Prod',
      '--param',
      'reserveConcurrency=yes',
      '--param',
      'messagingAssetsRate=cron(0 * * * ? *)',
    ]).then(
      () => undefined,
      (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ''}${error.stderr ?? ''}`,
    );

    // assess
    expect(failure).toContain('pds-bridge cannot be packaged:');
    expect(failure).toContain('pdsBaseUrl is required for stage "Prod": add --param pdsBaseUrl=https://');
    expect(failure).toContain('Stage "Prod" would make the bucket name');
    expect(failure).toContain('reserveConcurrency must be true or false, not "yes"');
    expect(failure).toContain('The messagingAssets schedule "cron(0 * * * ? *)" is not a rate');
  }, 120_000);

  it('refuses a misspelt --param, naming the closest parameter and every known one', async () => {
    // act
    const failure = await packageService(['--param', 'alarmMail=ops@acme.example']).then(
      () => undefined,
      (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ''}${error.stderr ?? ''}`,
    );

    // assess
    expect(failure).toContain('pds-bridge cannot be packaged:');
    expect(failure).toContain(
      'Unknown --param "alarmMail": did you mean alarmEmail? Known parameters: alarmEmail,',
    );
    expect(failure).toContain('pdsBaseUrl');
  }, 120_000);

  it('packages a local stage without pdsBaseUrl, with the placeholder host', async () => {
    const local = await packageService(['--stage', 'local']);

    expect(
      dig(local.Resources.ApiLambdaFunction?.Properties, 'Environment', 'Variables', 'PDS_BASE_URL'),
    ).toBe('https://pds.example.com');
  }, 120_000);
});
