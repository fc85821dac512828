/**
 * `npm run charts`: draws the docs' charts from the benchmark tables they sit under
 * (scripts/doc-charts.ts: docs/benchmarks.md, docs/costs.md) into docs/charts/*.svg and links each
 * under its table. Run it after a benchmark's table changed; `--check` only says which are stale.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseScriptArgs } from '../packages/cli/src/command-line.ts';
import { DOC_CHARTS, renderChart, withChartLink } from './doc-charts.ts';

const { values } = parseScriptArgs({
  command: 'node scripts/charts.ts',
  summary:
    'npm run charts: draws the charts of docs/benchmarks.md and docs/costs.md from their tables into docs/charts/ and links each under its table.',
  options: {
    check: { type: 'boolean', description: 'change nothing; exit 1 naming the charts that are stale' },
  },
});

const root = path.resolve(import.meta.dirname, '..');
const read = (file: string) => readFile(path.join(root, file), 'utf8').catch(() => '');
const stale: string[] = [];
const texts = new Map<string, string>();
for (const chart of DOC_CHARTS) {
  const markdown = texts.get(chart.file) ?? (await read(chart.file));
  const svg = `${renderChart(chart, markdown)}\n`;
  const svgFile = `docs/charts/${chart.name}.svg`;
  if ((await read(svgFile)) !== svg) {
    stale.push(svgFile);
    if (!values.check) {
      await mkdir(path.join(root, 'docs/charts'), { recursive: true });
      await writeFile(path.join(root, svgFile), svg);
    }
  }
  texts.set(chart.file, withChartLink(chart, markdown));
}
for (const [file, text] of texts) {
  if ((await read(file)) === text) continue;
  stale.push(file);
  if (!values.check) await writeFile(path.join(root, file), text);
}
if (values.check && stale.length > 0) {
  process.stderr.write(`stale: ${stale.join(', ')}; run npm run charts\n`);
  process.exit(1);
}
process.stdout.write(stale.length === 0 ? 'charts up to date\n' : `wrote ${stale.join(', ')}\n`);
