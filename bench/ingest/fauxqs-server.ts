/**
 * The S3 + SQS emulator (fauxqs) in a process of its own: it keeps every object body in memory, so a
 * GiB object must not count towards the measured process. Prints `{"url": ...}` once ready and stops
 * on SIGTERM / SIGINT. Spawned by bench/ingest.ts.
 */
import { startFauxqs } from 'fauxqs';

const server = await startFauxqs({ port: 0, logger: false, defaultRegion: 'us-east-1' });
process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.port}` })}\n`);
const stop = () => {
  server.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
