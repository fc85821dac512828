/**
 * python3 with boto3, for the Python consumer example (examples/consumer-python/). Installed on every
 * machine of ours with moto; as ./moto.ts does for moto_server, a missing one fails CI with the fix,
 * and elsewhere shows as one skipped test naming it.
 */
import { spawnSync } from 'node:child_process';
import { describe, it } from 'vitest';

const INSTALL_HINT = 'python3 with boto3 is needed: install python3 and then pip install boto3';

let availability: boolean | undefined;

/** True when `python3 -c "import boto3"` succeeds. */
export function pythonWithBoto3Available(): boolean {
  if (availability === undefined) {
    const probe = spawnSync('python3', ['-c', 'import boto3'], { stdio: 'ignore', timeout: 20_000 });
    availability = probe.status === 0;
  }
  return availability;
}

/**
 * `describe` that runs only where python3 and boto3 are installed. In CI (`CI` set) a missing one
 * fails the run; elsewhere it shows as one skipped test naming the fix.
 */
export function describeWithPython(name: string, body: () => void): void {
  if (pythonWithBoto3Available()) {
    describe(`${name} [python3]`, body);
    return;
  }
  if (process.env.CI) {
    throw new Error(`${INSTALL_HINT}. CI requires it: the Python consumer example is a test.`);
  }
  console.warn(`[python3] ${INSTALL_HINT}; skipping "${name}"`);
  describe(`${name} [python3]`, () => {
    it.skip(`needs python3 and boto3: ${INSTALL_HINT}`, () => {});
  });
}
