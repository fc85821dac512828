/**
 * The docs' charts (scripts/doc-charts.ts, `npm run charts`): each SVG in docs/charts/ and its link are
 * exactly what its table draws today, so a benchmark table changed without its picture fails here.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOC_CHARTS, numberOf, renderChart, withChartLink } from '../../scripts/doc-charts.ts';

const root = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFile(path.join(root, file), 'utf8');

describe('the docs’ charts', () => {
  it.each(DOC_CHARTS.map((chart) => [chart.name, chart] as const))(
    '%s is drawn from its table as it stands, and linked under it (else: npm run charts)',
    async (_name, chart) => {
      const markdown = await read(chart.file);
      expect(await read(`docs/charts/${chart.name}.svg`)).toBe(`${renderChart(chart, markdown)}\n`);
      expect(withChartLink(chart, markdown)).toBe(markdown);
    },
  );

  it('reads the numbers the tables write, and leaves out cells that state none', () => {
    expect(
      ['1,000,000', '$1372.49', '196×', '10x', '0.17 s', '127 MiB', 'not run', '—'].map(numberOf),
    ).toEqual([1_000_000, 1372.49, 196, 10, 0.17, 127, undefined, undefined]);
  });

  it('draws a chart with a text alternative and the table’s words as text, never as markup', () => {
    const markdown = [
      '## sizes',
      '',
      '| entries | question | requests |',
      '|---|---|---|',
      '| 10,000 | <script>x</script> & more | 51 |',
      '| 100,000 | <script>x</script> & more | 52 |',
    ].join('\n');
    const svg = renderChart(
      {
        name: 't',
        file: 'x.md',
        section: 'sizes',
        title: 'Requests',
        kind: 'line',
        x: 'entries',
        y: ['requests'],
        series: ['question'],
      },
      markdown,
    );
    expect(svg).toMatch(/^<svg [^>]*role="img"/);
    expect(svg).toContain('<desc id="chart-');
    expect(svg).toContain('&lt;script&gt;x&lt;/script&gt; &amp; more: 51 at 10,000, 52 at 100,000');
    expect(svg).not.toContain('<script>');
  });
});
