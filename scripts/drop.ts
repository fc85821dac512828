/** `npm run drop -- FILE...`: uploads files into the running local stack's drop bucket (packages/local/src/drop-cli.ts). */
import { runDropCli } from '../packages/local/src/drop-cli.ts';

process.exitCode = await runDropCli(process.argv.slice(2));
