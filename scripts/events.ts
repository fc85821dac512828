/** `npm run events`: prints the running local stack's events as they arrive (packages/local/src/events-cli.ts). */
import { runEventsCli } from '../packages/local/src/events-cli.ts';

process.exitCode = await runEventsCli(process.argv.slice(2));
