/**
 * Messaging-asset XML: how fast each way of parsing reads the GDSN fixtures, in one run.
 *
 *   node bench/xml.ts [--rounds 15] [--ms 200]
 *
 * Paths, measured in turn within every round so that a machine slowing down slows them all:
 * - general path: fast-xml-parser's validator, the markup scan and fast-xml-parser's parser (the
 *   only path before the one pass, and the one every document the one pass declines still takes);
 * - fast-xml-parser alone: its parser with our options, nothing else (no validation, no namespaces:
 *   not safe on its own; the rate to compare with);
 * - parseMessagingAsset: the one pass, falling back to the general path (every fixture is read by
 *   the one pass);
 * - parseMessagingAssetSafely: the same plus the CIC and GDSN message summaries, as the poller calls it.
 *
 * Each round runs each path over the three fixtures for `--ms` of CPU time. Prints the median
 * MiB/s (UTF-8 bytes per CPU second of this process), the median µs per document and each path's
 * rate as a multiple of fast-xml-parser's.
 *
 * Then the GDSN summaries at three sizes (issue 38): schema-shaped GS1 Responses of 1, 100 and
 * 10,000 errors (test/helpers/gs1-responses.ts), each summarised from its parsed document; prints
 * the median µs per summary, µs per error, the heap a summary allocates while it is built (the
 * heap growth with the collector held off, median of the rounds; `node --expose-gc` makes it
 * exact) and the size of the summary's JSON, with each size's time as a multiple of 100 errors'.
 * `--summaries-only` skips the parsers.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import {
  type ParsedDocument,
  parseMessagingAsset,
  parseMessagingAssetSafely,
  summariseGdsnMessage,
} from '../packages/bridge/src/xml/index.ts';
import { DEFAULT_MAX_XML_DEPTH, parseWithFastXmlParser } from '../packages/bridge/src/xml/parse.ts';
import { parseScriptArgs } from '../packages/cli/src/command-line.ts';
import { gs1Response } from '../test/helpers/gs1-responses.ts';
import { MiB, median, printTable, root } from './support.ts';

const { values } = parseScriptArgs({
  command: 'node bench/xml.ts',
  summary:
    'How fast each way of parsing messaging-asset XML reads the GDSN fixtures, in one run (MiB/s, µs per document, rate against fast-xml-parser alone).',
  options: {
    rounds: { type: 'string', default: '15', value: 'n', description: 'rounds; each runs every path' },
    ms: { type: 'string', default: '200', value: 'ms', description: 'CPU time per path and round' },
    'summaries-only': { type: 'boolean', description: 'only the GDSN summaries at 1, 100 and 10,000 errors' },
  },
});
const ROUNDS = Number(values.rounds);
const CPU_MS = Number(values.ms);

const fixtures = path.resolve(root, 'test/fixtures/gdsn');
const documents = ['cic-3.1-synchronised.xml', 'cic-3.1-review.xml', 'cic-2.8-state-attribute.xml'].map(
  (name) => readFileSync(path.join(fixtures, name), 'utf8'),
);
const bytesPerSet = documents.reduce((sum, xml) => sum + Buffer.byteLength(xml, 'utf8'), 0);

// The options of parse.ts, so the work is the same tree building.
const fastXmlParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  textNodeName: '#text',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  removeNSPrefix: true,
  alwaysCreateTextNode: true,
  isArray: (_name, _path, _isLeaf, isAttribute) => !isAttribute,
  processEntities: true,
  htmlEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
});

const paths: Array<[string, (xml: string) => unknown]> = [
  [
    'general path (validator + scan + fast-xml-parser)',
    (xml) => parseWithFastXmlParser(xml, DEFAULT_MAX_XML_DEPTH),
  ],
  ['fast-xml-parser alone', (xml) => fastXmlParser.parse(xml)],
  ['parseMessagingAsset (one pass)', (xml) => parseMessagingAsset(xml)],
  ['parseMessagingAssetSafely (one pass + CIC + GDSN)', (xml) => parseMessagingAssetSafely(xml)],
];

const cpuSeconds = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
};

/** Document sets parsed per CPU second during one slice of `CPU_MS`. */
function measure(parse: (xml: string) => unknown): number {
  const started = process.cpuUsage();
  let sets = 0;
  let seconds = 0;
  do {
    for (let repeat = 0; repeat < 20; repeat++) for (const xml of documents) parse(xml);
    sets += 20;
    seconds = cpuSeconds(started);
  } while (seconds * 1000 < CPU_MS);
  return sets / seconds;
}

/** The parsers over the three fixtures: the first table. */
function benchParsers(): void {
  for (const [, parse] of paths) measure(parse); // warm-up: compiled before the first round
  const rates = paths.map(() => [] as number[]);
  for (let round = 0; round < ROUNDS; round++) {
    paths.forEach(([, parse], index) => {
      rates[index]?.push(measure(parse));
    });
  }

  const setsPerSecond = rates.map((list) => median(list));
  const reference = setsPerSecond[1] as number;
  process.stdout.write(
    `\n${documents.length} GDSN fixtures, ${bytesPerSet} bytes a set; ${ROUNDS} rounds of ${CPU_MS} ms CPU per path; node ${process.version}\n\n`,
  );
  printTable(
    ['path', 'MiB/s', 'µs per document', 'x fast-xml-parser'],
    paths.map(([name], index) => {
      const sets = setsPerSecond[index] as number;
      return [
        name,
        ((sets * bytesPerSet) / MiB).toFixed(1),
        (1e6 / (sets * documents.length)).toFixed(1),
        (sets / reference).toFixed(2),
      ];
    }),
  );
}

const SUMMARY_SIZES = [1, 100, 10_000];

/** Heap bytes in use, after a full collection when node runs with --expose-gc. */
function heapUsed(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
}

/**
 * Summaries of `document`: CPU µs per summary (repeated for at least `CPU_MS` / 10, so that the
 * small documents are timed over many), the heap one summary grew by, and its JSON's length.
 */
function summariseOften(document: ParsedDocument): { micros: number; heap: number; json: number } {
  const before = heapUsed();
  const summary = summariseGdsnMessage(document);
  const heap = Math.max(0, process.memoryUsage().heapUsed - before);
  const started = process.cpuUsage();
  let count = 0;
  do {
    summariseGdsnMessage(document);
    count++;
  } while (cpuSeconds(started) * 1000 < CPU_MS / 10);
  return { micros: (cpuSeconds(started) * 1e6) / count, heap, json: JSON.stringify(summary).length };
}

/** The GDSN summaries at 1, 100 and 10,000 errors: the second table. */
function benchSummaries(): void {
  const documents = SUMMARY_SIZES.map((errors) => {
    const xml = gs1Response({ responses: 1, transactions: 2, errors, errorsPerDocument: 2 });
    return { errors, bytes: Buffer.byteLength(xml, 'utf8'), document: parseMessagingAsset(xml) };
  });
  for (const { document } of documents) summariseOften(document); // warm-up
  const rounds = Math.max(5, ROUNDS);
  const results = documents.map(({ document }) => {
    const runs = Array.from({ length: rounds }, () => summariseOften(document));
    return {
      micros: median(runs.map((run) => run.micros)),
      heap: median(runs.map((run) => run.heap)),
      json: runs[0]?.json ?? 0,
    };
  });
  const reference = results[1]?.micros ?? 1;
  process.stdout.write(
    `\nGDSN summaries of schema-shaped GS1 Responses; ${rounds} rounds; heap ${(globalThis as { gc?: unknown }).gc ? 'after a full collection (--expose-gc)' : 'growth without forcing a collection'}; node ${process.version}\n\n`,
  );
  printTable(
    ['errors', 'XML KiB', 'µs per summary', 'µs per error', 'x 100 errors', 'heap KiB', 'summary JSON KiB'],
    documents.map(({ errors, bytes }, index) => {
      const result = results[index] as { micros: number; heap: number; json: number };
      return [
        errors.toLocaleString('en'),
        (bytes / 1024).toFixed(1),
        result.micros.toFixed(0),
        (result.micros / errors).toFixed(2),
        (result.micros / reference).toFixed(2),
        (result.heap / 1024).toFixed(0),
        (result.json / 1024).toFixed(1),
      ];
    }),
  );
}

if (!values['summaries-only']) benchParsers();
benchSummaries();
