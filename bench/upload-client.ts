/**
 * One streamed upload from a file, in a process of its own: prints the time taken and this
 * process's peak RSS as one JSON line. Spawned (bundled) by bench/upload.ts.
 *
 *   node upload-client.mjs URL FILE
 */

import { createPdsClient } from '../packages/bridge/src/pds/index.ts';
import { parseScriptArgs } from '../packages/cli/src/command-line.ts';

const { positionals } = parseScriptArgs({
  command: 'node bench/upload-client.ts',
  summary:
    "One streamed upload of FILE to the PDS at URL (user demo): prints the time taken and this process's peak RSS as one JSON line. bench/upload.ts runs it.",
  options: {},
  positionals: 'URL FILE',
});
const [url, file] = positionals;
if (!url || !file || positionals.length > 2) {
  process.stderr.write('bench/upload-client.ts: give URL and FILE, nothing else (see --help)\n');
  process.exit(2);
}

const client = createPdsClient({ baseUrl: url, credentials: { username: 'demo', password: 'demo' } });
const started = process.hrtime.bigint();
const entries = await client.uploadGathering({ filePath: file });
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
await client.close();
if (entries.length !== 1) throw new Error(`expected one gathering entry, got ${entries.length}`);
process.stdout.write(`${JSON.stringify({ seconds, maxRssMiB: process.resourceUsage().maxRSS / 1024 })}\n`);
