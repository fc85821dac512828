#!/usr/bin/env node
// Entry point of `pds-simulator`; Node strips the TypeScript types of the imported module (checked first
// by node-check.mjs, so an older Node gets one line instead of a stack trace).
import '@pds-bridge/cli/bin/node-check.mjs';

const { runCli } = await import('../src/cli.ts');
await runCli(process.argv.slice(2));
