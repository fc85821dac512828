import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import {
  type AllowedWarning,
  allowance,
  allowedWarnings,
  type CfnLintMatch,
  cfnLint,
  describeWithCfnLint,
} from '../helpers/cfn-lint.ts';
import { packageService } from '../helpers/serverless.ts';

const root = path.resolve(import.meta.dirname, '../..');

/** The parameters that change which resources and conditions the template holds. */
const CHOICES = [
  ['--stage', 'prod', '--region', 'us-east-1', '--param', 'pdsBaseUrl=https://pds.acme.test'],
  ['--param', 'reserveConcurrency=true'],
  ['--param', 'dropBucket=acme-drops', '--param', 'ingestPrefix=incoming/'],
  ['--param', 'alarmEmail=ops@example.com'],
  ['--param', 'eventBus=create', '--param', 'eventDestinations=sqs,publication=both'],
].flat();

const describeMatch = (match: CfnLintMatch) => `${match.rule} ${match.path}: ${match.message}`;

describeWithCfnLint('the packaged CloudFormation template', () => {
  let allowed: AllowedWarning[];
  const findings: Record<'defaults' | 'everything', CfnLintMatch[]> = { defaults: [], everything: [] };

  beforeAll(async () => {
    allowed = allowedWarnings(await readFile(path.join(root, 'docs/deployment.md'), 'utf8'));
    // The second template is packaged while cfn-lint reads the first (packagings take turns anyway).
    [findings.defaults, findings.everything] = await Promise.all([
      packageService().then(cfnLint),
      packageService(CHOICES).then(cfnLint),
    ]);
  }, 240_000);

  for (const variant of ['defaults', 'everything'] as const) {
    const label = variant === 'defaults' ? 'with default parameters' : 'with every choice made';

    it(`has no cfn-lint error ${label}`, () => {
      expect(findings[variant].filter((match) => match.level === 'Error').map(describeMatch)).toEqual([]);
    });

    it(`has only the cfn-lint warnings docs/deployment.md allows ${label}`, () => {
      const unexplained = findings[variant].filter(
        (match) => match.level === 'Warning' && !allowance(match, allowed),
      );
      expect(unexplained.map(describeMatch)).toEqual([]);
    });
  }

  it('gives every allowed warning a reason, and allows none that no longer occurs', () => {
    const all = [...findings.defaults, ...findings.everything];

    expect(allowed.length).toBeGreaterThan(0);
    for (const entry of allowed) {
      const label = `${entry.rule} ${entry.path.source}`;
      expect(entry.reason.length, `${label} has a reason`).toBeGreaterThan(20);
      expect(
        all.some((match) => match.level === 'Warning' && allowance(match, [entry])),
        `${label} still occurs`,
      ).toBe(true);
    }
  });
});
