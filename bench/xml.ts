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
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { parseMessagingAsset, parseMessagingAssetSafely } from '../packages/bridge/src/xml/index.ts';
import { DEFAULT_MAX_XML_DEPTH, parseWithFastXmlParser } from '../packages/bridge/src/xml/parse.ts';
import { parseScriptArgs } from '../packages/cli/src/command-line.ts';
import { MiB, median, printTable, root } from './support.ts';

const { values } = parseScriptArgs({
  command: 'node bench/xml.ts',
  summary:
    'How fast each way of parsing messaging-asset XML reads the GDSN fixtures, in one run (MiB/s, µs per document, rate against fast-xml-parser alone).',
  options: {
    rounds: { type: 'string', default: '15', value: 'n', description: 'rounds; each runs every path' },
    ms: { type: 'string', default: '200', value: 'ms', description: 'CPU time per path and round' },
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
