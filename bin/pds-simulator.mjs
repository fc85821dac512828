#!/usr/bin/env node
// Entry point of `pds-simulator`; Node 24 strips the TypeScript types of the imported module.
import { runCli } from '../lib/simulator/cli.ts';

await runCli(process.argv.slice(2));
