/** `npm run drop -- FILE...`: uploads files into the running local stack's drop bucket (lib/local/drop-cli.ts). */
import { runDropCli } from '../lib/local/drop-cli.ts';

process.exitCode = await runDropCli(process.argv.slice(2));
