/**
 * Scale benchmarks (issue 20): does each flow's cost grow with what is new rather than with history?
 * Each section prints its figures against its target at three or more sizes; figures go to
 * docs/benchmarks.md. Not part of `npm test`.
 *
 *   node bench/scale.ts SECTION [flags]       one section, with its own flags
 *   node bench/scale.ts SECTION SECTION...    several (or `all`), each with its defaults
 *   node bench/scale.ts assets --sizes 100000,1000000,5000000
 *   node bench/scale.ts --help
 *
 * A section is a module under bench/scale/ exporting a `ScaleSection` (bench/scale/section.ts); add
 * it to SECTIONS. Each section parses its own flags strictly (an unknown flag is refused in one line):
 * flags of the same name mean different things in different sections (`--concurrency`).
 */
import { parseScriptArgs } from '../packages/cli/src/command-line.ts';
import { section as activity } from './scale/activity.ts';
import { section as archives } from './scale/archives.ts';
import { section as assets } from './scale/assets.ts';
import { section as exceptions } from './scale/exceptions.ts';
import { section as ledger } from './scale/ledger.ts';
import type { ScaleSection } from './scale/section.ts';
import { section as watchLists } from './scale/watch-lists.ts';

const SECTIONS: Record<string, ScaleSection> = {
  activity,
  assets,
  archives,
  ledger,
  exceptions,
  'watch-lists': watchLists,
};

async function main(argv: string[]): Promise<number> {
  // Flags belong to a section (their meanings differ between sections): `SECTION --flag`. Without a
  // section first, only --help and section names are taken.
  const named = argv.findIndex((arg) => arg.startsWith('-'));
  const names = named === -1 ? argv : argv.slice(0, named);
  const flags = named === -1 ? [] : argv.slice(named);
  if (names.length !== 1 || flags.length === 0) {
    parseScriptArgs(
      {
        command: 'node bench/scale.ts',
        summary: `Runs the named sections in order; each prints its figures as Markdown tables. Sections: ${Object.entries(
          SECTIONS,
        )
          .map(([name, each]) => `${name} (${each.summary})`)
          .join('; ')}. A section's own flags follow its name alone: node bench/scale.ts SECTION --help.`,
        options: {},
        positionals: 'SECTION... | all',
      },
      names.length === 0 ? argv : flags,
    );
  }
  const chosen = names.length === 1 && names[0] === 'all' ? Object.keys(SECTIONS) : names;
  if (chosen.length === 0) {
    process.stderr.write(
      `bench/scale.ts: name a section (${Object.keys(SECTIONS).join(', ')}, all) (see --help)\n`,
    );
    return 2;
  }
  const unknown = chosen.find((name) => !(name in SECTIONS));
  if (unknown !== undefined) {
    process.stderr.write(
      `bench/scale.ts: unknown section '${unknown}': use ${Object.keys(SECTIONS).join(', ')}, all\n`,
    );
    return 2;
  }
  try {
    for (const name of chosen) {
      if (chosen.length > 1) process.stdout.write(`\n## ${name}\n\n`);
      await (SECTIONS[name] as ScaleSection).run(flags);
    }
  } catch (error) {
    process.stderr.write(`bench/scale.ts: ${(error as Error).message.split('\n')[0]} (see --help)\n`);
    return 2;
  }
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
