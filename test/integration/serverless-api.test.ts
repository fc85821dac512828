/**
 * The API part of the packaged CloudFormation template (osls package, offline): HTTP API routes and
 * their authorisation, the publication queue and its DLQ, the worker's event source, least-privilege
 * roles and outputs; and the bundled api handler run as Lambda runs it: /health, a call to the PDS, and a
 * publication written to S3 and SQS.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../packages/simulator/src/index.ts';
import { apiEvent, bodyOf, postPublicationEvent, publicationBody } from '../helpers/apigw.ts';
import { startAwsEmulator } from '../helpers/fauxqs.ts';
import { type CloudFormationTemplate, packageService, resourcesOfType } from '../helpers/serverless.ts';

const run = promisify(execFile);

type Json = Record<string, unknown>;
interface Statement {
  Sid?: string;
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}

let template: CloudFormationTemplate;
let bundleDir = '';

beforeAll(async () => {
  template = await packageService([
    '--stage',
    'ci',
    '--param',
    'publicationMaxAttempts=4',
    '--param',
    'pdsBaseUrl=https://pds.ci.test',
  ]);
  // Other test files rebuild dist/ concurrently: keep a copy of the bundle this run produced.
  bundleDir = await mkdtemp(path.join(tmpdir(), 'pds-bridge-api-bundle-'));
  await cp(path.resolve(import.meta.dirname, '../../dist/api'), bundleDir, { recursive: true });
}, 180_000);

afterAll(async () => {
  if (bundleDir) await rm(bundleDir, { recursive: true, force: true });
});

function props(id: string): Json {
  const resource = template.Resources[id];
  if (!resource) throw new Error(`${id} is not in the template`);
  return resource.Properties ?? {};
}

function statements(role: string): Statement[] {
  const policies = props(role).Policies as Array<{ PolicyDocument: { Statement: Statement[] } }>;
  return policies.flatMap((policy) => policy.PolicyDocument.Statement);
}

const list = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

describe('serverless template: api and publish worker', () => {
  it('routes every operation with IAM authorisation except GET /health', () => {
    const routes = Object.fromEntries(
      resourcesOfType(template, 'AWS::ApiGatewayV2::Route').map((id) => {
        const route = props(id);
        return [route.RouteKey as string, route.AuthorizationType ?? 'NONE'];
      }),
    );

    expect(routes).toEqual({
      'GET /health': 'NONE',
      'GET /health/pds': 'AWS_IAM',
      'POST /publications': 'AWS_IAM',
      'GET /publications/{publicationId}': 'AWS_IAM',
      'GET /communication-channels': 'AWS_IAM',
      'POST /validations': 'AWS_IAM',
      'GET /watch': 'AWS_IAM',
      'GET /watch/{primaryKey}': 'AWS_IAM',
      'PUT /watch/{primaryKey}': 'AWS_IAM',
      'DELETE /watch/{primaryKey}': 'AWS_IAM',
      'GET /openapi.json': 'AWS_IAM',
      'ANY /{proxy+}': 'AWS_IAM',
    });
    const integration = props('HttpApiIntegrationApi');
    expect(integration.PayloadFormatVersion).toBe('2.0');
  });

  it('gives the api function its queue, limits and IAM auth mode', () => {
    const fn = props('ApiLambdaFunction');
    const env = (fn.Environment as { Variables: Json }).Variables;

    expect(fn).toMatchObject({ Handler: 'dist/api/index.handler', FunctionName: 'pds-bridge-ci-api' });
    expect(fn.Timeout as number).toBeLessThanOrEqual(30);
    expect(fn.Role).toEqual({ 'Fn::GetAtt': ['ApiRole', 'Arn'] });
    expect(env).toMatchObject({
      PUBLICATION_QUEUE_URL: { Ref: 'PublicationQueue' },
      API_AUTH_MODE: 'iam',
      PUBLICATION_MAX_KEYS: '1000',
      WATCH_TTL_DAYS: '30',
      STATE_BUCKET: { Ref: 'StateBucket' },
      PDS_CREDENTIALS_SECRET_ID: { Ref: 'PdsCredentialsSecret' },
    });
    expect(env).not.toHaveProperty('API_TOKEN');
  });

  it('feeds the worker from the publication queue with partial batch responses', () => {
    const fn = props('PublishWorkerLambdaFunction');
    const env = (fn.Environment as { Variables: Json }).Variables;
    const [mappingId] = resourcesOfType(template, 'AWS::Lambda::EventSourceMapping').filter((id) =>
      id.startsWith('PublishWorker'),
    );
    const mapping = props(mappingId as string);

    expect(fn).toMatchObject({
      Handler: 'dist/publish-worker/index.handler',
      FunctionName: 'pds-bridge-ci-publish-worker',
    });
    expect(env).toMatchObject({ PUBLICATION_MAX_ATTEMPTS: '4', EVENTS_QUEUE_URL: { Ref: 'EventsQueue' } });
    expect(mapping).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': ['PublicationQueue', 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('gives the publication queue a DLQ, a visibility timeout of 6x the worker timeout and room for every attempt', () => {
    const queue = props('PublicationQueue');
    const worker = props('PublishWorkerLambdaFunction');
    const env = (worker.Environment as { Variables: Json }).Variables;
    const redrive = queue.RedrivePolicy as { deadLetterTargetArn: unknown; maxReceiveCount: number };

    expect(queue.VisibilityTimeout as number).toBeGreaterThanOrEqual(6 * (worker.Timeout as number));
    expect(redrive.deadLetterTargetArn).toEqual({ 'Fn::GetAtt': ['PublicationDeadLetterQueue', 'Arn'] });
    expect(redrive.maxReceiveCount).toBeGreaterThan(Number(env.PUBLICATION_MAX_ATTEMPTS));
    expect(props('PublicationDeadLetterQueue').MessageRetentionPeriod).toBe(1209600);
  });

  it('grants each function only what it touches, never a wildcard action or resource', () => {
    const api = statements('ApiRole');
    const worker = statements('PublishWorkerRole');
    for (const statement of [...api, ...worker]) {
      for (const action of list(statement.Action)) expect(action).not.toMatch(/\*/);
      expect(statement.Resource).not.toBe('*');
      expect(JSON.stringify(statement.Resource)).not.toMatch(/"\*"/);
    }
    const bySid = (statementsOf: Statement[], sid: string) => statementsOf.find((s) => s.Sid === sid);

    expect(list(bySid(api, 'QueuePublications')?.Action as string)).toEqual(['sqs:SendMessage']);
    expect(JSON.stringify(bySid(api, 'Publications')?.Resource)).toMatch(/publications\/\*/);
    // The Idempotency-Key lives in the publication record; nothing reads idempotency/ any more.
    expect(JSON.stringify(api)).not.toContain('idempotency/');
    expect(JSON.stringify(bySid(api, 'WatchList')?.Resource)).toMatch(/watch\/\*/);
    expect(JSON.stringify(api)).not.toContain('EventsQueue');
    expect(bySid(worker, 'ConsumePublicationQueue')?.Action).toEqual([
      'sqs:ReceiveMessage',
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
    ]);
    expect(bySid(worker, 'SendEvents')?.Resource).toEqual({ 'Fn::GetAtt': ['EventsQueue', 'Arn'] });
    expect(JSON.stringify(worker)).not.toContain('idempotency');
    expect(JSON.stringify(bySid(api, 'OwnLogs')?.Resource)).toContain('/aws/lambda/pds-bridge-ci-api:*');
  });

  it('outputs the API URL and the queue URLs and ARNs', () => {
    const outputs = template.Outputs ?? {};
    expect(outputs.ApiUrl?.Value).toEqual({
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a CloudFormation Fn::Sub template, not JavaScript
      'Fn::Sub': 'https://${HttpApi}.execute-api.${AWS::Region}.${AWS::URLSuffix}',
    });
    expect(outputs.PublicationQueueUrl?.Value).toEqual({ Ref: 'PublicationQueue' });
    expect(outputs.PublicationQueueArn?.Value).toEqual({ 'Fn::GetAtt': ['PublicationQueue', 'Arn'] });
    expect(outputs.PublicationDeadLetterQueueUrl?.Value).toEqual({ Ref: 'PublicationDeadLetterQueue' });
    expect(outputs.EventsQueueUrl?.Value).toEqual({ Ref: 'EventsQueue' });
  });

  /** Runs the copied api bundle in a plain Node process, as Lambda would, and returns its result. */
  async function invokeBundle(
    event: APIGatewayProxyEventV2,
    env: Record<string, string>,
  ): Promise<{ statusCode: number; body: string }> {
    const script = [
      `const { handler } = await import(${JSON.stringify(pathToFileURL(path.join(bundleDir, 'index.mjs')).href)});`,
      `const result = await handler(${JSON.stringify(event)}, { functionName: 'api', awsRequestId: 'r1' });`,
      'process.stdout.write(JSON.stringify(result));',
      // The PDS client keeps its connections alive, as it should in Lambda; this process is done.
      'process.exit(0);',
    ].join('\n');
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      env: {
        PATH: process.env.PATH,
        PDS_BASE_URL: 'http://127.0.0.1:9',
        PDS_USERNAME: 'demo',
        PDS_PASSWORD: 'demo',
        STATE_BUCKET: 'state',
        PUBLICATION_QUEUE_URL: 'http://127.0.0.1:9/000000000000/publications',
        AWS_REGION: 'eu-central-1',
        API_AUTH_MODE: 'iam',
        POWERTOOLS_METRICS_DISABLED: 'true',
        POWERTOOLS_LOG_LEVEL: 'SILENT',
        ...env,
      },
    });
    return JSON.parse(stdout) as { statusCode: number; body: string };
  }

  it('maps the stack of an error in the bundle to the TypeScript sources, without --enable-source-maps', async () => {
    // A null event fails inside the bundle; the stack is formatted by packages/bridge/src/lambda/source-mapped-stacks.ts.
    const script = [
      `const { handler } = await import(${JSON.stringify(pathToFileURL(path.join(bundleDir, 'index.mjs')).href)});`,
      "try { await handler(null, { functionName: 'api', awsRequestId: 'r1' }); } catch (error) { process.stdout.write(error.stack); }",
      'process.exit(0);',
    ].join('\n');
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      env: {
        PATH: process.env.PATH,
        NODE_OPTIONS: '',
        PDS_BASE_URL: 'http://127.0.0.1:9',
        PDS_USERNAME: 'demo',
        PDS_PASSWORD: 'demo',
        STATE_BUCKET: 'state',
        PUBLICATION_QUEUE_URL: 'http://127.0.0.1:9/000000000000/publications',
        AWS_REGION: 'eu-central-1',
        POWERTOOLS_LOG_LEVEL: 'SILENT',
      },
    });
    const frames = stdout.split('\n').slice(1);

    expect(stdout).toMatch(/^TypeError: /);
    expect(frames[0]).toMatch(/packages\/bridge\/src\/api\/api\.ts:\d+:\d+\)$/);
    expect(frames.some((frame) => /packages\/bridge\/functions\/api\.ts:\d+:\d+\)$/.test(frame))).toBe(true);
    expect(stdout).not.toContain('index.mjs');
  });

  it('bundles an api handler that starts and answers GET /health', async () => {
    // A child process runs the bundle as Lambda would: plain Node, no test transform in between.
    const result = await invokeBundle(apiEvent({ path: '/health' }), {});

    expect(result.statusCode).toBe(200);
    expect(bodyOf(result)).toMatchObject({
      status: 'ok',
      service: 'pds-bridge',
      version: expect.any(String),
    });
  });

  it('bundles an HTTP client that reaches the PDS (node:http with a keep-alive agent)', async () => {
    const simulator = await startSimulator();
    try {
      const result = await invokeBundle(apiEvent({ path: '/communication-channels', iam: true }), {
        PDS_BASE_URL: simulator.url,
      });
      const [channel] = simulator.state.channels;

      expect(result.statusCode).toBe(200);
      expect(channel).toBeDefined();
      expect(JSON.stringify(bodyOf(result))).toContain(JSON.stringify(channel?.id));
    } finally {
      await simulator.close();
    }
  });

  it('bundles an AWS SDK that signs with the credentials Lambda puts in the environment', async () => {
    // The simulator answers the channel check of POST /publications (gdsn-de is a demo channel).
    const simulator = await startSimulator();
    const aws = await startAwsEmulator({ buckets: ['state'], queues: ['publications'] });
    try {
      const result = await invokeBundle(postPublicationEvent(publicationBody()), {
        ...aws.env,
        PDS_BASE_URL: simulator.url,
        PUBLICATION_QUEUE_URL: aws.queueUrls.publications as string,
      });
      const { publicationId } = bodyOf(result) as { publicationId: string };
      const received = await aws.sqs.send(
        new ReceiveMessageCommand({ QueueUrl: aws.queueUrls.publications, WaitTimeSeconds: 1 }),
      );

      expect(result.statusCode).toBe(202);
      expect(received.Messages?.map((message) => message.Body)).toEqual([
        expect.stringContaining(publicationId),
      ]);
    } finally {
      await aws.close();
      await simulator.close();
    }
  });
});
