/**
 * `cfn-lint` (Python, AWS's CloudFormation linter) run on a packaged template, and the allow-list of
 * warnings that docs/deployment.md keeps with their reasons.
 *
 * cfn-lint is installed on every machine of ours, CI's included (like moto, ./moto.ts). When it is
 * missing, CI fails with a message naming the fix; elsewhere the suite registers one skipped test whose
 * name says why, and a warning is printed.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, it } from 'vitest';

const run = promisify(execFile);

const INSTALL_HINT = 'cfn-lint is not on PATH: install it for python3 (pip install cfn-lint)';

/** One finding of `cfn-lint --format json`, reduced to what the allow-list matches. */
export interface CfnLintMatch {
  rule: string;
  level: 'Error' | 'Warning' | 'Informational';
  /** `Location.Path` joined with `/`, e.g. `Resources/EventsQueue/Properties/QueueName/Fn::Sub`. */
  path: string;
  message: string;
}

/** A warning that is allowed to stay: its rule, a pattern of the paths it may occur at, and why. */
export interface AllowedWarning {
  rule: string;
  path: RegExp;
  reason: string;
}

let availability: boolean | undefined;

/** True when `cfn-lint` runs on this machine. */
export function cfnLintAvailable(): boolean {
  if (availability === undefined) {
    const probe = spawnSync('cfn-lint', ['--version'], { stdio: 'ignore', timeout: 60_000 });
    availability = probe.status === 0;
  }
  return availability;
}

/**
 * `describe` that runs only where cfn-lint is installed. In CI (`CI` set) a missing cfn-lint fails the
 * run; elsewhere it shows as one skipped test naming the fix.
 */
export function describeWithCfnLint(name: string, body: () => void): void {
  if (cfnLintAvailable()) {
    describe(`${name} [cfn-lint]`, body);
    return;
  }
  if (process.env.CI) {
    throw new Error(`${INSTALL_HINT}. CI requires it: it lints the packaged template.`);
  }
  console.warn(`[cfn-lint] ${INSTALL_HINT}; skipping "${name}"`);
  describe(`${name} [cfn-lint]`, () => {
    it.skip(`needs cfn-lint: ${INSTALL_HINT}`, () => {});
  });
}

/**
 * Runs `cfn-lint --format json` on a template and returns every match. cfn-lint's exit code is a
 * bitmask (2 errors, 4 warnings, 8 informational): those codes still carry the JSON on stdout; any
 * other failure (no JSON) is thrown.
 */
export async function cfnLint(template: unknown): Promise<CfnLintMatch[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pds-bridge-cfn-lint-'));
  try {
    const file = path.join(dir, 'cloudformation-template-update-stack.json');
    await writeFile(file, JSON.stringify(template, null, 2));
    const stdout = await run('cfn-lint', ['--format', 'json', file], { maxBuffer: 32 * 1024 * 1024 }).then(
      (result) => result.stdout,
      (error: { code?: unknown; stdout?: string; stderr?: string }) => {
        if (typeof error.code === 'number' && (error.code & ~0b1110) === 0 && error.stdout)
          return error.stdout;
        throw new Error(`cfn-lint failed (exit ${String(error.code)}): ${error.stderr ?? ''}`);
      },
    );
    const matches = JSON.parse(stdout || '[]') as Array<{
      Rule: { Id: string };
      Level: CfnLintMatch['level'];
      Location: { Path?: Array<string | number> };
      Message: string;
    }>;
    return matches.map((match) => ({
      rule: match.Rule.Id,
      level: match.Level,
      path: (match.Location.Path ?? []).join('/'),
      message: match.Message,
    }));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The allow-list of the "cfn-lint" section of docs/deployment.md: its table rows
 * `| W3005 | \`^Resources/…$\` | reason |`, the path a regular expression matched against the whole
 * `Location.Path` joined with `/`.
 */
export function allowedWarnings(markdown: string): AllowedWarning[] {
  const section = /^## cfn-lint\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(markdown)?.[1] ?? '';
  return [...section.matchAll(/^\| (W\d{4}) \| `([^`]+)` \| (.*?) \|$/gm)].map(
    ([, rule, pattern, reason]) => ({
      rule: rule as string,
      path: new RegExp(pattern as string),
      reason: (reason as string).trim(),
    }),
  );
}

/** The allow-list entry that covers a warning, if any. */
export function allowance(match: CfnLintMatch, allowed: AllowedWarning[]): AllowedWarning | undefined {
  return allowed.find((entry) => entry.rule === match.rule && entry.path.test(match.path));
}
