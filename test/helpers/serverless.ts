import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');

export interface CloudFormationTemplate {
  Resources: Record<string, { Type: string; Properties?: Record<string, unknown>; DependsOn?: unknown }>;
  Outputs?: Record<string, { Value: unknown }>;
}

/**
 * Builds the bundles and runs `osls package` offline into a temporary directory, returning the
 * generated CloudFormation template. No AWS account or credentials are involved.
 */
export async function packageService(args: string[] = []): Promise<CloudFormationTemplate> {
  const outDir = await mkdtemp(path.join(tmpdir(), 'pds-bridge-package-'));
  try {
    // No profile or credentials: packaging must never need an AWS account.
    const { AWS_PROFILE: _profile, ...inherited } = process.env;
    const env = { ...inherited, SLS_TELEMETRY_DISABLED: '1', SLS_NOTIFICATIONS_MODE: 'off' };
    await run(process.execPath, ['scripts/build.ts'], { cwd: root, env });
    await run(
      process.execPath,
      [path.join(root, 'node_modules/osls/bin/serverless.js'), 'package', '--package', outDir, ...args],
      {
        cwd: root,
        env,
      },
    );
    return JSON.parse(await readFile(path.join(outDir, 'cloudformation-template-update-stack.json'), 'utf8'));
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}

/** Resources of one CloudFormation type, by logical id. */
export function resourcesOfType(template: CloudFormationTemplate, type: string): string[] {
  return Object.entries(template.Resources)
    .filter(([, resource]) => resource.Type === type)
    .map(([logicalId]) => logicalId)
    .sort();
}
