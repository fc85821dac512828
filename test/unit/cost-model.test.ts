import { describe, expect, it } from 'vitest';
import {
  monthly,
  PRICES,
  s3ClassOf,
  scaleLine,
  sqsBilledRequests,
  total,
  type UnitCost,
} from '../../bench/costs/model.ts';

const none: UnitCost = {
  invocations: 0,
  gbSeconds: 0,
  s3Writes: 0,
  s3Reads: 0,
  sqsRequests: 0,
  apiRequests: 0,
};

describe('the cost model', () => {
  it('bills S3 writes, listings and multipart parts as writes, deletes as free, the rest as reads', () => {
    // act
    const classes = [
      'PutObjectCommand',
      'ListObjectsV2Command',
      'UploadPartCommand',
      'PutObjectTaggingCommand',
      'DeleteObjectCommand',
      'GetObjectCommand',
      'HeadObjectCommand',
    ].map(s3ClassOf);

    // assess
    expect(classes).toEqual(['write', 'write', 'write', 'write', 'free', 'read', 'read']);
  });

  it('counts every started 64 KiB of an SQS payload as one request, and an empty one as one', () => {
    expect([0, 1, 65_536, 65_537, 262_144].map(sqsBilledRequests)).toEqual([1, 1, 1, 2, 4]);
  });

  it('prices a month of one operation from its unit cost', () => {
    // prepare: a million units of one invocation (1 GB-s), 2 S3 writes, 10 S3 reads, 3 SQS requests
    const cost: UnitCost = {
      invocations: 1,
      gbSeconds: 1,
      s3Writes: 2,
      s3Reads: 10,
      sqsRequests: 3,
      apiRequests: 1,
    };

    // act
    const line = monthly({ operation: 'x', unit: 'u', unitsPerMonth: 1_000_000, cost });

    // assess
    expect(line.usd.lambda).toBeCloseTo(
      PRICES.lambdaPerMillionRequests + 1_000_000 * PRICES.lambdaPerGbSecondArm,
    );
    expect(line.usd.s3).toBeCloseTo(2_000 * PRICES.s3PerThousandWrites + 10_000 * PRICES.s3PerThousandReads);
    expect(line.usd.sqs).toBeCloseTo(3 * PRICES.sqsPerMillionRequests);
    expect(line.usd.api).toBeCloseTo(PRICES.httpApiPerMillionRequests);
    expect(line.usd.total).toBeCloseTo(line.usd.lambda + line.usd.s3 + line.usd.sqs + line.usd.api);
  });

  it('adds the lines up into the total', () => {
    // prepare
    const a = monthly({ operation: 'a', unit: 'u', unitsPerMonth: 100, cost: { ...none, s3Reads: 1 } });
    const b = monthly({
      operation: 'b',
      unit: 'u',
      unitsPerMonth: 50,
      cost: { ...none, s3Reads: 2, sqsRequests: 1 },
    });

    // act
    const sum = total([a, b]);

    // assess
    expect(sum).toMatchObject({ operation: 'total', s3Reads: 200, sqsRequests: 50 });
    expect(sum.usd.total).toBeCloseTo(a.usd.total + b.usd.total);
  });
});

describe('the cost model at a larger load', () => {
  const cost: UnitCost = {
    ...none,
    invocations: 51,
    gbSeconds: 34,
    s3Writes: 7,
    s3Reads: 112,
    sqsRequests: 105,
  };

  it('multiplies the units of a line whose units cost the same however many there are', () => {
    // act
    const scaled = scaleLine({ operation: 'ingest', unit: 'drop', unitsPerMonth: 30_000, cost }, 10);

    // assess
    expect(scaled.unitsPerMonth).toBe(300_000);
    expect(scaled.cost).toEqual(cost);
    expect(monthly(scaled).usd.total).toBeCloseTo(
      monthly({ operation: 'ingest', unit: 'drop', unitsPerMonth: 30_000, cost }).usd.total * 10,
    );
  });

  it('keeps the runs of a run over every watched key and grows each run but for its fixed part', () => {
    // act
    const scaled = scaleLine(
      {
        operation: 'review run',
        unit: 'run',
        unitsPerMonth: 8640,
        cost,
        growth: { perUnit: true, fixed: { invocations: 1 } },
      },
      100,
    );

    // assess: 1 scheduled invocation + 100 x 50 chunk invocations
    expect(scaled.unitsPerMonth).toBe(8640);
    expect(scaled.cost.invocations).toBe(5001);
    expect(scaled.cost.s3Reads).toBe(11_200);
    expect(scaled.cost.gbSeconds).toBe(3400);
  });
});
