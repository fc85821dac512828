/**
 * One streamed upload from a file, in a process of its own: prints the time taken, the CPU time this
 * process spent on it and its peak RSS as one JSON line. Spawned (bundled) by bench/upload.ts.
 *
 *   node upload-client.mjs URL FILE [--check on|off] [--warm]
 *
 * Without `--check` the client reads the file itself (`filePath`); with it, the file is streamed as
 * the ingest streams an S3 object, through the ingest's content check (`on`) or not (`off`). FILE may
 * then be an `http://` address: its answer is streamed, as an S3 object's body is (a socket read on
 * this thread, where a file is read by libuv's thread pool).
 */

import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import http, { type IncomingMessage } from 'node:http';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { checkWhileStreaming } from '../packages/bridge/src/ingest/content/check.ts';
import { createPdsClient } from '../packages/bridge/src/pds/index.ts';
import { parseScriptArgs } from '../packages/cli/src/command-line.ts';

const { values, positionals } = parseScriptArgs({
  command: 'node bench/upload-client.ts',
  summary:
    "One streamed upload of FILE to the PDS at URL (user demo): prints the time taken and this process's peak RSS as one JSON line. bench/upload.ts runs it.",
  options: {
    check: {
      type: 'string',
      value: 'on|off',
      description: "stream the file through the ingest's content check, or not",
    },
    warm: {
      type: 'boolean',
      description: 'upload the file once unmeasured first, as a function that has handled a file before',
    },
  },
  positionals: 'URL FILE',
});
const [url, file] = positionals;
if (
  !url ||
  !file ||
  positionals.length > 2 ||
  (values.check !== undefined && !['on', 'off'].includes(values.check))
) {
  process.stderr.write(
    'bench/upload-client.ts: give URL and FILE, and --check on or off if any (see --help)\n',
  );
  process.exit(2);
}

const client = createPdsClient({ baseUrl: url, credentials: { username: 'demo', password: 'demo' } });
const overHttp = file.startsWith('http://');
if (overHttp && values.check === undefined) {
  process.stderr.write('bench/upload-client.ts: an http:// FILE needs --check on or off\n');
  process.exit(2);
}

/** The file's bytes and size: read from disk, or the answer of a GET (as an S3 object's body). */
async function open(): Promise<{ source: Readable; size: number }> {
  if (!overHttp) return { source: createReadStream(file as string), size: (await stat(file as string)).size };
  const answer = await new Promise<IncomingMessage>((resolve, reject) =>
    http.get(file as string, resolve).once('error', reject),
  );
  if (answer.statusCode !== 200) throw new Error(`GET ${file} answered ${answer.statusCode}`);
  return { source: answer, size: Number(answer.headers['content-length']) };
}

/** One upload as asked: its gathering entries, and the check's problem if any. */
async function upload(filePath: string): Promise<{ entries: unknown[]; problem: unknown }> {
  if (values.check === undefined)
    return { entries: await client.uploadGathering({ filePath }), problem: undefined };
  const fileName = path.basename(filePath);
  const { source, size } = await open();
  const checked =
    values.check === 'on'
      ? checkWhileStreaming(source, fileName)
      : { stream: source, verdict: async () => undefined };
  const entries = await client.uploadGathering({ stream: checked.stream, size, fileName });
  return { entries, problem: await checked.verdict() };
}

if (values.warm === true) await upload(file);
const started = process.hrtime.bigint();
const cpuBefore = process.cpuUsage();
const { entries, problem } = await upload(file);
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
const cpu = process.cpuUsage(cpuBefore);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
await client.close();
if (entries.length !== 1) throw new Error(`expected one gathering entry, got ${entries.length}`);
if (problem) throw new Error(`the content check refused the benchmark's file: ${JSON.stringify(problem)}`);
process.stdout.write(
  `${JSON.stringify({ seconds, cpuSeconds, maxRssMiB: process.resourceUsage().maxRSS / 1024 })}\n`,
);
