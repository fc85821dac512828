#!/usr/bin/env node
// Entry point of `npm start`, the local stack; Node 24 strips the TypeScript types of the imported module.
import { runLocalStackCli } from '../lib/local/cli.ts';

const code = await runLocalStackCli(process.argv.slice(2));
// Everything is stopped; idle keep-alive sockets of the PDS client would only delay the exit.
process.exit(code);
