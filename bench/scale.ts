/**
 * Scale benchmarks (issue 20): does each flow's cost grow with what is new rather than with history?
 * Each section prints its figures against its target at three or more sizes; figures go to
 * docs/benchmarks.md. Not part of `npm test`.
 *
 *   node bench/scale.ts SECTION... [flags]
 *   node bench/scale.ts assets --sizes 100000,1000000,5000000
 *   node bench/scale.ts --help
 *
 * A section is a module under bench/scale/ exporting a `ScaleSection` (bench/scale/section.ts); add
 * it to SECTIONS.
 * Flags are parsed once for all sections (strictly: an unknown flag is refused in one line), so two
 * sections must not declare the same flag with different meanings.
 */
import { parseArgs } from 'node:util';
import { section as assets } from './scale/assets.ts';
import type { ScaleSection } from './scale/section.ts';

const SECTIONS: Record<string, ScaleSection> = { assets };

function usage(): string {
  const lines = [
    'usage: node bench/scale.ts SECTION... [flags]',
    '',
    'sections:',
    ...Object.entries(SECTIONS).flatMap(([name, each]) => [
      `  ${name.padEnd(12)} ${each.summary}`,
      ...each.help.map((line) => `      ${line}`),
    ]),
    '',
    'Runs the named sections in order; each prints its figures as Markdown tables.',
  ];
  return `${lines.join('\n')}\n`;
}

async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        help: { type: 'boolean', short: 'h' },
        ...Object.assign({}, ...Object.values(SECTIONS).map((each) => each.options)),
      },
    });
  } catch (error) {
    process.stderr.write(`${(error as Error).message.split('\n')[0]}; see --help\n`);
    return 2;
  }
  if (parsed.values.help) {
    process.stdout.write(usage());
    return 0;
  }
  const names = parsed.positionals;
  if (names.length === 0) {
    process.stderr.write(`name at least one section (${Object.keys(SECTIONS).join(', ')}); see --help\n`);
    return 2;
  }
  const unknown = names.find((name) => !(name in SECTIONS));
  if (unknown !== undefined) {
    process.stderr.write(`unknown section '${unknown}': use ${Object.keys(SECTIONS).join(', ')}\n`);
    return 2;
  }
  try {
    for (const name of names) {
      process.stdout.write(`\n## ${name}\n\n`);
      await (SECTIONS[name] as ScaleSection).run(
        parsed.values as Record<string, string | boolean | undefined>,
      );
    }
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return 2;
  }
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
