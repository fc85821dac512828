/** `npm run events`: prints the running local stack's events as they arrive (lib/local/events-cli.ts). */
import { runEventsCli } from '../lib/local/events-cli.ts';

process.exitCode = await runEventsCli(process.argv.slice(2));
