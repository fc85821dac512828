#!/usr/bin/env node
// Entry point of `pds`, the operators' client of the PDS; Node 24 strips the TypeScript types of the imported module.
import { runCli } from '../src/main.ts';

process.exitCode = await runCli(process.argv.slice(2));
