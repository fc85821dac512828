/**
 * A quick, bounded variant of the webhooks' chaos run (bench/chaos/webhooks.ts; docs/benchmarks.md,
 * "Chaos: webhooks") inside `npm test`: 20 events to four faulty live endpoints, a steady one, a slow
 * one and a dead one on 127.0.0.1, through the webhook queue and its slow lane (the emulator) and the webhook-delivery handler, with
 * workers killed mid-batch; 5 s of faults, then a failed-only replay. No baseline run: the isolation
 * target needs the full run and an idle machine, so it is left to the bench.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

it('loses nothing, signs every request and sends duplicates only with the same webhook-id', async () => {
  // act
  const child = spawn(
    process.execPath,
    [
      path.join(root, 'bench/chaos/webhooks.ts'),
      '--events',
      '20',
      '--phase-ms',
      '5000',
      '--no-baseline',
      '--seed',
      '3',
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.stderr.resume();
  // Usually 10-20 s; when a live endpoint's breaker opened under the faults, the run waits for it to
  // close (30-60 s more) before it counts what arrived.
  const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
  await once(child, 'exit');
  clearTimeout(timer);

  // assess
  const line = output.split('\n').find((each) => each.startsWith('{"chaos":"webhooks"'));
  expect(line, output.slice(-3000)).toBeDefined();
  const result = JSON.parse(line as string) as Record<string, number>;
  expect(result).toMatchObject({
    events: 20,
    lost: 0,
    idMismatches: 0,
    badSignatures: 0,
    deadNotReplayable: 0,
    retryAfterViolations: 0,
    dripDelivered: 0,
  });
  expect(result.requests).toBeGreaterThanOrEqual(20 * 5);
}, 160_000);
