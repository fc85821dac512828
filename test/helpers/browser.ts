/**
 * A real headless browser for the console's tests: Debian's chromium (`apt-get install chromium`;
 * .ci/run installs it when missing), driven by playwright-core through its executable path, and
 * axe-core's accessibility check run inside the page.
 */
import { access, mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Where the browser is: PDS_CHROMIUM, else Debian's. */
export const CHROMIUM_PATH = process.env.PDS_CHROMIUM ?? '/usr/bin/chromium';

/** Where screenshots go (ignored by git). */
export const SCREENSHOT_DIR = join(process.cwd(), 'test-results', 'console');

export async function launchChromium(): Promise<Browser> {
  try {
    await access(CHROMIUM_PATH);
  } catch {
    throw new Error(
      `No chromium at ${CHROMIUM_PATH}: install Debian's package (apt-get install -y chromium) or set PDS_CHROMIUM to a Chromium or Chrome executable`,
    );
  }
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox', '--disable-gpu'] });
}

/** What went wrong in a page while the test used it: console errors (CSP violations among them) and uncaught errors. */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning')
      problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('dialog', (dialog) => {
    problems.push(`dialog opened: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return problems;
}

let axeSource: string | undefined;

/** axe-core's violations of WCAG 2 A and AA on the page as it is, one line each (empty when it passes). */
export async function axeViolations(page: Page): Promise<string[]> {
  axeSource ??= await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  // Evaluated by the browser's debugger, not loaded as a script: the page's CSP allows none.
  await page.evaluate(axeSource);
  const result = (await page.evaluate(() =>
    (
      globalThis as unknown as {
        axe: { run(context: unknown, options: unknown): Promise<unknown> };
      }
    ).axe.run((globalThis as unknown as { document: unknown }).document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    }),
  )) as { violations: Array<{ id: string; help: string; nodes: Array<{ target: unknown }> }> };
  return result.violations.map(
    (violation) =>
      `${violation.id}: ${violation.help} (${violation.nodes.map((node) => JSON.stringify(node.target)).join(', ')})`,
  );
}
