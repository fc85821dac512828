/**
 * `pds bridge console`: the operators' console in the browser (packages/cli/src/console), served on
 * 127.0.0.1 for as long as the command runs, reading the local stack or a deployed stage with the
 * operator's own credentials, exactly as the other `pds bridge` commands do.
 */
import { once } from 'node:events';
import { booleanFlag, integerFlag, stringFlag } from '../args.ts';
import type { Command } from '../command.ts';
import { startConsole } from '../console/server.ts';
import { writeLine } from '../io.ts';
import { targetOptions, withConnection } from './bridge.ts';

const consoleCommand: Command = {
  name: 'bridge console',
  summary:
    "open the operators' console in a browser: synchronisation, recipients, deliveries, pipeline (read-only unless --allow-actions)",
  description:
    "Serves the console on 127.0.0.1 until Ctrl-C, and prints its address with a token made for this run (open it in a browser on this machine). It reads the stage with your own AWS credentials, as `pds bridge status` does: nothing is added to the deployment. Pages: Synchronisation (the exception list, a publication's items × recipients, an entry's history), Recipients (p50/p95 to SYNCHRONISED per day, the share never answered), Deliveries (webhook endpoints and their attempts, the event queues' DLQs), Pipeline (what `pds bridge status` shows). Without --allow-actions it changes nothing; with it, redrive and replay are offered, each after a page that shows what it would do. docs/operations.md, \"The console\".",
  args: '',
  minArgs: 0,
  maxArgs: 0,
  options: {
    ...targetOptions,
    port: {
      type: 'string',
      value: 'N',
      description: 'listen on this port of 127.0.0.1 (default: any free one)',
    },
    'allow-actions': {
      type: 'boolean',
      description:
        'offer redrive and replay (each asks for confirmation first); without it the console only reads',
    },
  },
  examples: [
    'pds bridge console',
    'pds bridge console --stage prod',
    'pds bridge console --stage prod --allow-actions --port 8765',
  ],
  async run(context) {
    const { flags, io, command } = context;
    const port = integerFlag(flags, 'port', command, { min: 0, max: 65535 }) ?? 0;
    const stage = stringFlag(flags, 'stage') ?? io.env.PDS_BRIDGE_STAGE;
    await withConnection(context, async (connection) => {
      const running = await startConsole({
        connection,
        port,
        actions: booleanFlag(flags, 'allow-actions'),
        stageFlag: stage && stage !== 'local' ? ` --stage ${stage}` : '',
        log: (line) => writeLine(io.stderr, line),
      });
      writeLine(io.stdout, `Console of stage ${connection.stage}: ${running.url}`);
      writeLine(io.stdout, 'Open it in a browser on this machine; Ctrl-C stops it.');
      await Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM')]);
      await running.close();
    });
    return undefined;
  },
};

export const consoleCommands: Command[] = [consoleCommand];
