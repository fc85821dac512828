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
