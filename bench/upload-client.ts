/**
 * One streamed upload from a file, in a process of its own: prints the time taken and this
 * process's peak RSS as one JSON line. Spawned (bundled) by bench/upload.ts.
 *
 *   node upload-client.mjs URL FILE
 */
import { createPdsClient } from '../lib/pds/index.ts';

const [url, file] = process.argv.slice(2);
if (!url || !file) throw new Error('usage: upload-client URL FILE');

const client = createPdsClient({ baseUrl: url, credentials: { username: 'demo', password: 'demo' } });
const started = process.hrtime.bigint();
const entries = await client.uploadGathering({ filePath: file });
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
await client.close();
if (entries.length !== 1) throw new Error(`expected one gathering entry, got ${entries.length}`);
process.stdout.write(`${JSON.stringify({ seconds, maxRssMiB: process.resourceUsage().maxRSS / 1024 })}\n`);
