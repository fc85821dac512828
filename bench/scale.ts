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
import { section as archives } from './scale/archives.ts';
import { section as assets } from './scale/assets.ts';
import type { ScaleSection } from './scale/section.ts';
import { section as watchLists } from './scale/watch-lists.ts';

const SECTIONS: Record<string, ScaleSection> = { assets, archives, 'watch-lists': watchLists };

function usage(): string {
  const lines = [
    'usage: node bench/scale.ts SECTION [flags]     (or: SECTION SECTION... | all, with defaults)',
    '',
    'sections:',
    ...Object.entries(SECTIONS).flatMap(([name, each]) => [
      `  ${name.padEnd(12)} ${each.summary}`,
      ...each.help.split('\n').map((line) => `      ${line}`),
      '',
    ]),
    'Runs the named sections in order; each prints its figures as Markdown tables.',
  ];
  return `${lines.join('\n')}\n`;
}

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h')) {
    if (argv.length === 0) {
      process.stderr.write(`name a section (${Object.keys(SECTIONS).join(', ')}, all); see --help\n`);
      return 2;
    }
    process.stdout.write(usage());
    return 0;
  }
  const firstFlag = argv.findIndex((arg) => arg.startsWith('-'));
  const names = firstFlag === -1 ? argv : argv.slice(0, firstFlag);
  const flags = firstFlag === -1 ? [] : argv.slice(firstFlag);
  const chosen = names.length === 1 && names[0] === 'all' ? Object.keys(SECTIONS) : names;
  const unknown = chosen.find((name) => !(name in SECTIONS));
  if (unknown !== undefined) {
    process.stderr.write(`unknown section '${unknown}': use ${Object.keys(SECTIONS).join(', ')}, all\n`);
    return 2;
  }
  if (chosen.length !== 1 && flags.length > 0) {
    process.stderr.write('flags go with one section at a time (their meanings differ); see --help\n');
    return 2;
  }
  try {
    for (const name of chosen) {
      process.stdout.write(`\n## ${name}\n\n`);
      await (SECTIONS[name] as ScaleSection).run(flags);
    }
  } catch (error) {
    process.stderr.write(`${(error as Error).message.split('\n')[0]}; see --help\n`);
    return 2;
  }
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
