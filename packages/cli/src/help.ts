/**
 * Help texts of `pds`, generated from the command table: the overview, one group, one command.
 */
import { type CliOptions, GLOBAL_OPTIONS } from './args.ts';
import type { Command } from './command.ts';
import { COMMANDS, GROUPS } from './commands/index.ts';

const CONNECTION =
  'Connection: PDS_BASE_URL, and PDS_USERNAME / PDS_PASSWORD or PDS_CREDENTIALS_SECRET_ID (a Secrets\n' +
  'Manager secret {"username","password"}); --base-url, --username, --password-stdin override them.\n' +
  'Output: JSON when stdout is not a terminal (or with --json), tables on a terminal.\n' +
  'Exit codes: 0 done, 1 the PDS or a file refused it, 2 wrong usage or configuration.';

/** The overview: every command with its summary. */
export function overviewHelp(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length));
  const lines = COMMANDS.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`);
  return [
    'Usage: pds COMMAND [ARGS] [OPTIONS]',
    '',
    'The operators’ client of the Product Data Service.',
    '',
    'Commands:',
    ...lines,
    '',
    'Global options:',
    optionLines(GLOBAL_OPTIONS),
    '',
    CONNECTION,
    '',
    'Run `pds COMMAND --help` for the arguments and examples of a command.',
  ].join('\n');
}

/** The subcommands of a group, e.g. `folders`. */
export function groupHelp(group: string): string {
  const commands = COMMANDS.filter((command) => command.name.startsWith(`${group} `));
  const width = Math.max(...commands.map((command) => command.name.length));
  return [
    `Usage: pds ${group} SUBCOMMAND [ARGS] [OPTIONS]`,
    '',
    `${capitalised(GROUPS[group] ?? group)}.`,
    '',
    'Subcommands:',
    ...commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    '',
    `Run \`pds ${group} SUBCOMMAND --help\` for the arguments and examples of a subcommand.`,
  ].join('\n');
}

/** Usage, description, options and examples of one command. */
export function commandHelp(command: Command): string {
  const options = command.options ?? {};
  return [
    `Usage: pds ${command.name}${command.args ? ` ${command.args}` : ''} [OPTIONS]`,
    '',
    `${capitalised(command.summary)}.`,
    ...(command.description ? ['', command.description] : []),
    ...(Object.keys(options).length > 0 ? ['', 'Options:', optionLines(options)] : []),
    '',
    'Global options:',
    optionLines(GLOBAL_OPTIONS),
    '',
    'Examples:',
    ...command.examples.map((example) => `  ${example}`),
  ].join('\n');
}

function optionLines(options: CliOptions): string {
  const entries = Object.entries(options).map(([name, option]) => {
    const flag = `${option.short ? `-${option.short}, ` : ''}--${name}${option.value ? ` ${option.value}` : ''}`;
    return [flag, `${option.description}${option.multiple ? ' (repeatable)' : ''}`] as const;
  });
  const width = Math.max(...entries.map(([flag]) => flag.length));
  return entries.map(([flag, description]) => `  ${flag.padEnd(width)}  ${description}`).join('\n');
}

function capitalised(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}
