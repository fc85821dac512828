#!/usr/bin/env node
// Entry point of `npm start`, the local stack; Node strips the TypeScript types of the imported module
// (checked first by node-check.mjs, so an older Node gets one line instead of a stack trace).
import '@pds-bridge/cli/bin/node-check.mjs';

const { runLocalStackCli } = await import('../src/cli.ts');
const code = await runLocalStackCli(process.argv.slice(2));
// Everything is stopped; idle keep-alive sockets of the PDS client would only delay the exit.
process.exit(code);
