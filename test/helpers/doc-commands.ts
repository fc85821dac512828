/**
 * The shell commands of the docs: every command line of a ```sh / ```bash / ```shell block in
 * README.md and docs/*.md, with where it is written (file:line), continuation lines (`\`) joined.
 * test/integration/docs-commands.test.ts runs them against a local stack, or skips them by the rules
 * of test/docs/command-skips.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One command as written in a doc. */
export interface DocCommand {
  /** `docs/cli.md:141`, the line the command starts on (relative to the repository root). */
  where: string;
  /** The command as bash reads it (continuations joined; a trailing `# comment` left to bash). */
  command: string;
  /** Where its code block starts (`docs/cli.md:131`). */
  block: string;
}

const SHELL_BLOCK = /^(sh|bash|shell)$/;

/**
 * The documents the test reads: README.md and every docs/*.md.
 *
 * @example
 * ```ts
 * docFiles('/repo'); // ['README.md', 'docs/api.md', ...]
 * ```
 */
export function docFiles(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

/**
 * The command lines of a markdown text's shell blocks; comment-only and blank lines are left out.
 *
 * @example
 * ```ts
 * docCommands('docs/x.md', '```sh\npds channels   # list\n```');
 * // [{ where: 'docs/x.md:2', command: 'pds channels   # list', block: 'docs/x.md:1' }]
 * ```
 */
export function docCommands(file: string, markdown: string): DocCommand[] {
  const commands: DocCommand[] = [];
  let inShell = false;
  let inBlock = false;
  let pending: DocCommand | undefined;
  let block = '';
  for (const [index, line] of markdown.split('\n').entries()) {
    const fence = /^\s*```(\S*)/.exec(line);
    if (fence) {
      inShell = !inBlock && SHELL_BLOCK.test(fence[1] ?? '');
      inBlock = !inBlock;
      block = `${file}:${index + 1}`;
      pending = undefined;
      continue;
    }
    if (!inShell) continue;
    const text = line.trim();
    if (pending) {
      pending.command += `\n${line}`;
      if (!text.endsWith('\\')) pending = undefined;
      continue;
    }
    if (text === '' || text.startsWith('#')) continue;
    const command = { where: `${file}:${index + 1}`, command: text, block };
    commands.push(command);
    if (text.endsWith('\\')) pending = command;
  }
  return commands;
}

/** Every command of every doc the test reads. */
export function allDocCommands(root: string): DocCommand[] {
  return docFiles(root).flatMap((file) => docCommands(file, readFileSync(join(root, file), 'utf8')));
}

/**
 * `command` with each documented default address (a key of `addresses`) turned into its value, all
 * in one pass: an address put in is never rewritten again. Replaced one after another, a stack's API
 * on port 40105 became the simulator's address with a 5 after its port (it begins with the
 * simulator's default, 127.0.0.1:4010), and curl refused the URL.
 *
 * @example
 * ```ts
 * withAddresses('curl http://127.0.0.1:3000/health', { 'http://127.0.0.1:3000': 'http://127.0.0.1:40105' });
 * // 'curl http://127.0.0.1:40105/health'
 * ```
 */
export function withAddresses(command: string, addresses: Readonly<Record<string, string>>): string {
  const escaped = Object.keys(addresses).map((address) => address.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  // Not inside a longer port: http://127.0.0.1:30001 is no 127.0.0.1:3000.
  const pattern = new RegExp(`(?:${escaped.join('|')})(?!\\d)`, 'g');
  return command.replace(pattern, (address) => addresses[address] ?? address);
}
