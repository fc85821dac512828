/**
 * The cost model: what a stated daily load costs a month, from the requests one unit of each
 * operation makes (measured by bench/costs.ts against the emulator and the simulator) and public
 * list prices. Pure arithmetic, so it is unit-tested (test/unit/cost-model.test.ts) and re-run
 * whenever the measured counts change.
 */

/** AWS list prices for US East (N. Virginia), in USD, as published on the service pricing pages. */
export const PRICES = Object.freeze({
  region: 'us-east-1',
  /** When these were last checked against the pricing pages. */
  checked: '2026-03',
  lambdaPerMillionRequests: 0.2,
  /** arm64, the architecture serverless.yml deploys; first 7.5 billion GB-s a month. */
  lambdaPerGbSecondArm: 0.0000133334,
  /** PUT, COPY, POST, LIST (and multipart parts, tagging writes). */
  s3PerThousandWrites: 0.005,
  /** GET, HEAD and every other request but DELETE, which is free. */
  s3PerThousandReads: 0.0004,
  /** Standard queues; every 64 KiB of a request's payload counts as one request. */
  sqsPerMillionRequests: 0.4,
  /** HTTP APIs, first 300 million requests a month. */
  httpApiPerMillionRequests: 1.0,
});

/** Monthly prices of resources that cost the same whatever the load (same region and date). */
export const FIXED_PRICES = Object.freeze({
  alarm: 0.1,
  dashboard: 3.0,
  secret: 0.4,
  /** A customer-managed KMS key (the alarm topic's); its requests are a few per alarm, left out. */
  kmsKey: 1.0,
});

/** One row of the fixed monthly costs: what, how many the template holds, the price of each. */
export interface FixedCostRow {
  resource: string;
  count: number;
  price: number;
}

/**
 * The monthly costs of a packaged template that do not depend on the load: its alarms, dashboards and
 * secrets, counted from the template's resources (docs/costs.md's fixed-cost table is this, and
 * test/integration/costs-docs.test.ts holds them equal).
 *
 * @example
 * ```ts
 * fixedCosts({ A: { Type: 'AWS::CloudWatch::Alarm' } })[0]; // { resource: 'CloudWatch alarms (standard resolution)', count: 1, price: 0.1 }
 * ```
 */
export function fixedCosts(resources: Readonly<Record<string, { Type: string }>>): FixedCostRow[] {
  const count = (type: string) =>
    Object.values(resources).filter((resource) => resource.Type === type).length;
  return [
    {
      resource: 'CloudWatch alarms (standard resolution)',
      count: count('AWS::CloudWatch::Alarm'),
      price: FIXED_PRICES.alarm,
    },
    {
      resource: 'CloudWatch dashboards (the first 3 of an account are free)',
      count: count('AWS::CloudWatch::Dashboard'),
      price: FIXED_PRICES.dashboard,
    },
    {
      resource: 'Secrets Manager secrets',
      count: count('AWS::SecretsManager::Secret'),
      price: FIXED_PRICES.secret,
    },
    {
      resource: 'KMS customer-managed keys',
      count: count('AWS::KMS::Key'),
      price: FIXED_PRICES.kmsKey,
    },
  ];
}

/** S3 request classes as billed. */
export type S3Class = 'write' | 'read' | 'free';

/** Which price class each S3 operation the bridge uses is billed in. */
export function s3ClassOf(command: string): S3Class {
  const name = command.replace(/Command$/, '');
  if (name === 'DeleteObject' || name === 'DeleteObjects') return 'free';
  if (
    [
      'PutObject',
      'CopyObject',
      'ListObjectsV2',
      'ListObjects',
      'ListObjectVersions',
      'CreateMultipartUpload',
      'UploadPart',
      'CompleteMultipartUpload',
      'PutObjectTagging',
    ].includes(name)
  ) {
    return 'write';
  }
  return 'read';
}

/** What one unit of an operation costs in requests and compute. */
export interface UnitCost {
  /** Lambda invocations (may be a fraction: a batch serves several units). */
  invocations: number;
  /** GB-seconds of Lambda time. */
  gbSeconds: number;
  s3Writes: number;
  s3Reads: number;
  /** SQS requests as billed (64 KiB chunks), the bridge's own and the event sources'. */
  sqsRequests: number;
  /** HTTP API requests. */
  apiRequests: number;
}

/** One line of the model: an operation, its unit cost, and how many units a month. */
export interface Line {
  operation: string;
  /** What one unit is, e.g. `drop`, `run`, `publication`. */
  unit: string;
  unitsPerMonth: number;
  cost: UnitCost;
  /**
   * How the line grows with the load ({@link scaleLine}): by default, more units at the same cost each
   * (a drop costs the same however many there are). `perUnit` lines keep their units (a scheduled run
   * every 5 minutes) and each unit costs more, in proportion to the load, but for the `fixed` part of
   * its cost (the one scheduled invocation of a run that fans out one invocation per chunk).
   */
  growth?: { perUnit: true; fixed: Partial<UnitCost> };
}

/**
 * The line at `factor` times the stated load: `factor` times the units, or, for a line whose unit
 * grows with the load (a run over every watched key), the same units each costing `factor` times as
 * much beyond its fixed part. Linear, so it over-estimates what does not grow with the keys (a
 * listing page per 1,000 keys, 64 progress shards): bench/scale/watch-lists.ts measures how a run
 * really grows.
 *
 * @example
 * scaleLine({ operation: 'ingest', unit: 'drop', unitsPerMonth: 30_000, cost }, 10).unitsPerMonth; // 300000
 */
export function scaleLine(line: Line, factor: number): Line {
  if (!line.growth) return { ...line, unitsPerMonth: line.unitsPerMonth * factor };
  const { fixed } = line.growth;
  const grow = (name: keyof UnitCost) => {
    const still = fixed[name] ?? 0;
    return still + (line.cost[name] - still) * factor;
  };
  return {
    ...line,
    cost: {
      invocations: grow('invocations'),
      gbSeconds: grow('gbSeconds'),
      s3Writes: grow('s3Writes'),
      s3Reads: grow('s3Reads'),
      sqsRequests: grow('sqsRequests'),
      apiRequests: grow('apiRequests'),
    },
  };
}

/** A line's monthly requests, compute and price. */
export interface MonthlyLine {
  operation: string;
  invocations: number;
  gbSeconds: number;
  s3Writes: number;
  s3Reads: number;
  sqsRequests: number;
  apiRequests: number;
  usd: { lambda: number; s3: number; sqs: number; api: number; total: number };
}

/**
 * Monthly figures of one line at list prices (no free tier: it is per account, shared with
 * everything else the account runs).
 *
 * @example
 * monthly({ operation: 'ingest', unit: 'drop', unitsPerMonth: 30_000, cost }).usd.total;
 */
export function monthly(line: Line, prices = PRICES): MonthlyLine {
  const n = line.unitsPerMonth;
  const c = line.cost;
  const invocations = c.invocations * n;
  const gbSeconds = c.gbSeconds * n;
  const s3Writes = c.s3Writes * n;
  const s3Reads = c.s3Reads * n;
  const sqsRequests = c.sqsRequests * n;
  const apiRequests = c.apiRequests * n;
  const lambda =
    (invocations / 1e6) * prices.lambdaPerMillionRequests + gbSeconds * prices.lambdaPerGbSecondArm;
  const s3 = (s3Writes / 1000) * prices.s3PerThousandWrites + (s3Reads / 1000) * prices.s3PerThousandReads;
  const sqs = (sqsRequests / 1e6) * prices.sqsPerMillionRequests;
  const api = (apiRequests / 1e6) * prices.httpApiPerMillionRequests;
  return {
    operation: line.operation,
    invocations,
    gbSeconds,
    s3Writes,
    s3Reads,
    sqsRequests,
    apiRequests,
    usd: { lambda, s3, sqs, api, total: lambda + s3 + sqs + api },
  };
}

/** The sum of monthly lines. */
export function total(lines: readonly MonthlyLine[]): MonthlyLine {
  const sum = (pick: (line: MonthlyLine) => number) => lines.reduce((acc, line) => acc + pick(line), 0);
  return {
    operation: 'total',
    invocations: sum((l) => l.invocations),
    gbSeconds: sum((l) => l.gbSeconds),
    s3Writes: sum((l) => l.s3Writes),
    s3Reads: sum((l) => l.s3Reads),
    sqsRequests: sum((l) => l.sqsRequests),
    apiRequests: sum((l) => l.apiRequests),
    usd: {
      lambda: sum((l) => l.usd.lambda),
      s3: sum((l) => l.usd.s3),
      sqs: sum((l) => l.usd.sqs),
      api: sum((l) => l.usd.api),
      total: sum((l) => l.usd.total),
    },
  };
}

/** SQS bills each 64 KiB of a request's payload as one request. */
export function sqsBilledRequests(payloadBytes: number): number {
  return Math.max(1, Math.ceil(payloadBytes / 65_536));
}
