import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type CloudFormationTemplate, packageService, resourcesOfType } from '../helpers/serverless.ts';

describe('serverless.yml packaged offline by osls', () => {
  let template: CloudFormationTemplate;

  beforeAll(async () => {
    template = await packageService([
      '--stage',
      'ci',
      '--region',
      'eu-west-1',
      '--param',
      'pdsBaseUrl=https://pds.ci.test',
    ]);
  }, 120_000);

  it('declares a private, encrypted, versioned state bucket', () => {
    const [stateBucket] = resourcesOfType(template, 'AWS::S3::Bucket').filter((id) => id === 'StateBucket');
    expect(stateBucket).toBe('StateBucket');
    const properties = template.Resources.StateBucket?.Properties ?? {};
    expect(properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(properties.VersioningConfiguration).toEqual({ Status: 'Enabled' });
    expect(JSON.stringify(properties.BucketName)).toContain('-ci');
  });

  it('blocks public access on every bucket, the deployment bucket osls creates included', () => {
    const buckets = resourcesOfType(template, 'AWS::S3::Bucket');
    expect(buckets).toContain('ServerlessDeploymentBucket');
    for (const id of buckets) {
      expect(template.Resources[id]?.Properties?.PublicAccessBlockConfiguration, id).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
    }
  });

  it('parks an event its consumer failed five times in the events DLQ', () => {
    expect(template.Resources.EventsQueue?.Properties?.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': ['EventsDeadLetterQueue', 'Arn'] },
      maxReceiveCount: 5,
    });
    expect(template.Resources.EventsDeadLetterQueue?.Properties?.MessageRetentionPeriod).toBe(1_209_600);
  });

  it('refuses every request to the state bucket that does not use TLS', () => {
    const policy = template.Resources.StateBucketPolicy?.Properties ?? {};

    expect(policy.Bucket).toEqual({ Ref: 'StateBucket' });
    expect(policy.PolicyDocument).toMatchObject({
      Statement: [
        {
          Effect: 'Deny',
          Principal: '*',
          Action: 's3:*',
          Condition: { Bool: { 'aws:SecureTransport': false } },
        },
      ],
    });
  });

  it('exports the state bucket name', () => {
    expect(template.Outputs?.StateBucketName?.Value).toEqual({ Ref: 'StateBucket' });
  });

  it('uses no variables that need AWS credentials to resolve', async () => {
    const source = await readFile(path.resolve(import.meta.dirname, '../../serverless.yml'), 'utf8');
    expect(source).not.toMatch(/\$\{(aws|ssm|cf|s3):/);
  });
});
