import { GetObjectCommand } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { AwsJson1_0Protocol, JsonCodec } from '@aws-sdk/core/protocols';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  configuredEndpoint,
  createS3Client,
  createSqsClient,
  resetAwsClients,
  s3Client,
  sqsClient,
} from '../../packages/bridge/src/lambda/aws-clients.ts';
import { setEnv } from '../helpers/env.ts';

const NO_ENDPOINTS = {
  AWS_ENDPOINT_URL: undefined,
  AWS_ENDPOINT_URL_S3: undefined,
  AWS_ENDPOINT_URL_SQS: undefined,
  AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: undefined,
  AWS_REGION: 'eu-central-1',
};

let restore = () => {};

afterEach(() => {
  restore();
  restore = () => {};
  resetAwsClients();
});

describe('configuredEndpoint', () => {
  it('prefers the service variable over the general one, as the SDK does', () => {
    // act & assess
    expect(
      configuredEndpoint('S3', { AWS_ENDPOINT_URL: 'http://all', AWS_ENDPOINT_URL_S3: 'http://s3' }),
    ).toBe('http://s3');
    expect(
      configuredEndpoint('SQS', { AWS_ENDPOINT_URL: 'http://all', AWS_ENDPOINT_URL_S3: 'http://s3' }),
    ).toBe('http://all');
    expect(configuredEndpoint('SQS', { AWS_ENDPOINT_URL_SQS: '' })).toBeUndefined();
  });

  it('honours AWS_IGNORE_CONFIGURED_ENDPOINT_URLS', () => {
    // act & assess
    expect(
      configuredEndpoint('S3', {
        AWS_ENDPOINT_URL_S3: 'http://s3',
        AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: 'true',
      }),
    ).toBeUndefined();
  });
});

describe("the clients' middleware", () => {
  it('is resolved once per command class, and middleware attached before the first send (the tracer) runs on every request', async () => {
    // prepare: a middleware that answers without a network, as the tracer's would wrap the request
    const client = createS3Client({
      region: 'eu-central-1',
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    });
    let seen = 0;
    client.middlewareStack.add(
      () => async () => {
        seen += 1;
        return { output: { $metadata: {} }, response: {} };
      },
      { step: 'initialize', name: 'answerHere' },
    );
    const resolve = vi.spyOn(GetObjectCommand.prototype, 'resolveMiddleware');
    restore = () => {
      resolve.mockRestore();
      client.destroy();
    };

    // act
    for (const Key of ['a', 'b', 'c']) await client.send(new GetObjectCommand({ Bucket: 'bucket', Key }));

    // assess
    expect(seen).toBe(3);
    expect(resolve).toHaveBeenCalledTimes(1);
  });
});

describe('createS3Client', () => {
  it('uses path-style addressing when an S3 endpoint is configured', async () => {
    // prepare
    restore = setEnv({ ...NO_ENDPOINTS, AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:4566' });

    // act
    const client = createS3Client();

    // assess
    expect(client.config.forcePathStyle).toBe(true);
    expect(await client.config.region()).toBe('eu-central-1');
  });

  it('keeps virtual-hosted addressing against AWS itself', () => {
    // prepare
    restore = setEnv(NO_ENDPOINTS);

    // act
    const client = createS3Client();

    // assess
    expect(client.config.forcePathStyle).toBe(false);
  });
});

describe('createSqsClient', () => {
  it('sends to the configured endpoint rather than the queue URL host when one is configured', () => {
    // prepare
    restore = setEnv({ ...NO_ENDPOINTS, AWS_ENDPOINT_URL: 'http://127.0.0.1:4566' });

    // act
    const local = createSqsClient();
    restore();
    restore = setEnv(NO_ENDPOINTS);
    const aws = createSqsClient();

    // assess
    expect(local.config.useQueueUrlAsEndpoint).toBe(false);
    expect(aws.config.useQueueUrlAsEndpoint).toBe(true);
  });

  it("speaks the SDK's own SQS protocol, changing only the JSON codec", () => {
    // prepare: what packages/bridge/src/lambda/aws-clients.ts copies from the SDK's client, read off both (an SDK upgrade that
    // changes one of them fails here, not in production)
    restore = setEnv(NO_ENDPOINTS);
    interface ProtocolSettings {
      serviceTarget: string;
      awsQueryCompatible: boolean;
      options: { defaultNamespace: string; errorTypeRegistries: unknown[] };
      codec: { settings: unknown };
      getShapeId(): string;
    }
    const settings = (client: SQSClient) => {
      const protocol = client.config.protocol as unknown as ProtocolSettings;
      return {
        shapeId: protocol.getShapeId(),
        serviceTarget: protocol.serviceTarget,
        awsQueryCompatible: protocol.awsQueryCompatible,
        options: protocol.options,
        codecSettings: protocol.codec.settings,
      };
    };

    // act
    const ours = createSqsClient();
    const sdk = new SQSClient({});

    // assess
    expect(settings(ours)).toEqual(settings(sdk));
    expect(ours.config.protocol).toBeInstanceOf(AwsJson1_0Protocol);
    expect((ours.config.protocol as unknown as ProtocolSettings).codec).toBeInstanceOf(JsonCodec);
  });
});

describe('process-wide clients', () => {
  it('are created once and reused until reset', () => {
    // prepare
    restore = setEnv(NO_ENDPOINTS);

    // act
    const first = [s3Client(), sqsClient()];
    const again = [s3Client(), sqsClient()];
    resetAwsClients();
    const afterReset = [s3Client(), sqsClient()];

    // assess
    again.forEach((client, i) => {
      expect(client).toBe(first[i]);
    });
    afterReset.forEach((client, i) => {
      expect(client).not.toBe(first[i]);
    });
  });
});
