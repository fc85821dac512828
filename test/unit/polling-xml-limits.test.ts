/**
 * The XML limits of messaging assets as settings (XML_MAX_BYTES, XML_MAX_DEPTH, XML_MAX_ELEMENTS,
 * XML_MAX_ATTRIBUTES; docs/security.md, "Sizes and counts"): read from the environment within their
 * bounds, and applied by the poller at their boundary: the largest accepted document becomes an
 * event with its document, one more makes it a `parseError` event.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../packages/bridge/src/config/index.ts';
import { pollMessagingAssets } from '../../packages/bridge/src/polling/messaging-assets/index.ts';
import { MESSAGING_ASSET_POLL_SETTINGS } from '../../packages/bridge/src/polling/settings.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';
import type { ParseOptions } from '../../packages/bridge/src/xml/index.ts';
import { RecordingSink } from '../helpers/event-sink.ts';
import { FakePds } from '../helpers/fake-pds.ts';

const BASE = { PDS_BASE_URL: 'https://pds.example.com', PDS_USERNAME: 'demo', PDS_PASSWORD: 'demo' };

function problemsOf(fn: () => unknown): readonly string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

/** The parse error code of the one asset `xml` polled with `limits`, or `undefined` when it parsed. */
async function parseErrorOf(xml: string, limits: ParseOptions): Promise<string | undefined> {
  const pds = new FakePds();
  pds.addAsset(xml);
  const sink = new RecordingSink();
  await pollMessagingAssets(
    { pds, store: new MemoryStateStore(), sink },
    { firstRun: 'backlog', xmlLimits: limits },
  );
  const [data] = sink.dataOf('pds.messaging-asset.received');
  if (!data) throw new Error('no event emitted');
  if (data.parseError === undefined) expect(data.document).toBeDefined();
  return data.parseError?.code;
}

const elements = (count: number) => `<r>${'<a/>'.repeat(count - 1)}</r>`;
const attributes = (count: number) =>
  `<r>${Array.from({ length: count }, (_, index) => `<a n${index % 10}="v"/>`).join('')}</r>`;
const nested = (depth: number) => `<r>${'<a>'.repeat(depth)}${'</a>'.repeat(depth)}</r>`;

describe('XML limits of messaging assets', () => {
  it('reads the four settings from the environment, with the library defaults', () => {
    // act
    const defaults = loadConfig(BASE, { settings: MESSAGING_ASSET_POLL_SETTINGS }).settings;
    const set = loadConfig(
      {
        ...BASE,
        XML_MAX_BYTES: '2048',
        XML_MAX_DEPTH: '7',
        XML_MAX_ELEMENTS: '1000000',
        XML_MAX_ATTRIBUTES: '1',
      },
      { settings: MESSAGING_ASSET_POLL_SETTINGS },
    ).settings;

    // assess
    expect(defaults).toMatchObject({
      XML_MAX_BYTES: 10 * 1024 * 1024,
      XML_MAX_DEPTH: 100,
      XML_MAX_ELEMENTS: 200_000,
      XML_MAX_ATTRIBUTES: 200_000,
    });
    expect(set).toMatchObject({
      XML_MAX_BYTES: 2048,
      XML_MAX_DEPTH: 7,
      XML_MAX_ELEMENTS: 1_000_000,
      XML_MAX_ATTRIBUTES: 1,
    });
  });

  it('refuses a value beyond its bounds, naming the variable', () => {
    // act
    const problems = problemsOf(() =>
      loadConfig(
        {
          ...BASE,
          XML_MAX_BYTES: String(64 * 1024 * 1024 + 1),
          XML_MAX_DEPTH: '1001',
          XML_MAX_ELEMENTS: '1000001',
          XML_MAX_ATTRIBUTES: '0',
        },
        { settings: MESSAGING_ASSET_POLL_SETTINGS },
      ),
    );

    // assess
    expect(problems.map((problem) => problem.split(' ')[0]).sort()).toEqual([
      'XML_MAX_ATTRIBUTES',
      'XML_MAX_BYTES',
      'XML_MAX_DEPTH',
      'XML_MAX_ELEMENTS',
    ]);
  });

  it('passes a document with exactly XML_MAX_ELEMENTS elements and refuses one more', async () => {
    expect(await parseErrorOf(elements(50), { maxElements: 50 })).toBeUndefined();
    expect(await parseErrorOf(elements(51), { maxElements: 50 })).toBe('LIMIT_EXCEEDED');
  });

  it('passes a document with exactly XML_MAX_ATTRIBUTES attributes and refuses one more', async () => {
    expect(await parseErrorOf(attributes(30), { maxAttributes: 30 })).toBeUndefined();
    expect(await parseErrorOf(attributes(31), { maxAttributes: 30 })).toBe('LIMIT_EXCEEDED');
  });

  it('passes a document nested exactly XML_MAX_DEPTH levels below the root and refuses one more', async () => {
    expect(await parseErrorOf(nested(5), { maxDepth: 5 })).toBeUndefined();
    expect(await parseErrorOf(nested(6), { maxDepth: 5 })).toBe('LIMIT_EXCEEDED');
  });

  it('passes a document of exactly XML_MAX_BYTES bytes and refuses one more', async () => {
    const xml = elements(10);
    const bytes = Buffer.byteLength(xml);

    expect(await parseErrorOf(xml, { maxBytes: bytes })).toBeUndefined();
    expect(await parseErrorOf(xml, { maxBytes: bytes - 1 })).toBe('TOO_LARGE');
  });
});
