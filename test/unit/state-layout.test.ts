/**
 * The layout of the state bucket. Each module builds its own keys under top-level prefixes it declares
 * with `statePrefix` (packages/bridge/src/state/keys.ts); this test finds every declaration in the packages, so a new one is
 * held to the same rules: no two prefixes collide or nest, docs/architecture.md ("The state bucket")
 * lists exactly them with the module that builds their keys, and the keys each module builds stay byte
 * for byte what the bridge wrote before (a changed key orphans every object stored under the old one).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CONFIRMATION_DEADLINES_PREFIX,
  confirmationChannelPrefix,
  confirmationDeadlineKey,
  confirmationItemPrefix,
  confirmationKey,
  deadlineOfConfirmationDeadlineKey,
} from '../../packages/bridge/src/confirmations/keys.ts';
import { publishFailuresKey } from '../../packages/bridge/src/events/publish-failures.ts';
import { claimCheckKey } from '../../packages/bridge/src/events/sqs/index.ts';
import { ingestProgressKey } from '../../packages/bridge/src/ingest/keys.ts';
import {
  checkpointKey,
  MESSAGING_ASSETS_AUDIT_KEY,
  PROGRESS_LAYOUT_KEY,
  reviewProgressKey,
} from '../../packages/bridge/src/polling/keys.ts';
import { idempotencyKey, publicationKey } from '../../packages/bridge/src/publications/keys.ts';
import { declaredStatePrefixes, leaseKey, watchKey } from '../../packages/bridge/src/state/index.ts';
import { packageSourceFiles } from '../helpers/module-imports.ts';

const root = path.resolve(import.meta.dirname, '../..');

/** The package files that declare a prefix, and the names they declare, read from the sources. */
function declarationsInSources(): { files: string[]; names: string[] } {
  const files: string[] = [];
  const names: string[] = [];
  for (const file of packageSourceFiles()) {
    // Code only: a comment's example is no declaration.
    const source = readFileSync(path.join(root, file), 'utf8')
      .split('\n')
      .filter((line) => !/^\s*(?:\/\/|\/?\*)/.test(line))
      .join('\n');
    const declared = [...source.matchAll(/statePrefix\(\s*'([^']*)'/g)].map((match) => match[1] as string);
    if (declared.length === 0) continue;
    files.push(file);
    names.push(...declared);
  }
  return { files, names };
}

/** `[prefix, row]` of each row of docs/architecture.md's table of the state bucket. */
function documentedRows(): Array<[string, string]> {
  const architecture = readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');
  const section = architecture.split(/^## The state bucket$/m)[1]?.split(/^## /m)[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((row) => [/^\| `([^/`]+\/)/.exec(row)?.[1] ?? row, row]);
}

describe('the state bucket layout', () => {
  const sources = declarationsInSources();

  beforeAll(async () => {
    for (const file of sources.files) await import(path.join(root, file));
  });

  it('has every declared prefix loaded: one segment each, none declared twice', () => {
    // act
    const declared = [...declaredStatePrefixes().keys()].sort();

    // assess
    expect(declared).toEqual([...new Set(sources.names)].map((name) => `${name}/`).sort());
    expect(sources.names).toHaveLength(new Set(sources.names).size);
    expect(declared).toContain('ingest/');
  });

  it('never puts one prefix inside another', () => {
    // prepare
    const prefixes = [...declaredStatePrefixes().keys()];

    // act
    const nested = prefixes.flatMap((outer) =>
      prefixes
        .filter((inner) => inner !== outer && inner.startsWith(outer))
        .map((inner) => `${outer} ⊃ ${inner}`),
    );

    // assess
    expect(nested).toEqual([]);
  });

  it('is documented in docs/architecture.md, each prefix with the module that builds its keys', () => {
    // prepare
    const declared = declaredStatePrefixes();
    const rows = documentedRows();

    // act
    const documented = [...new Set(rows.map(([prefix]) => prefix))].sort();
    const wrongOwner = rows
      .filter(([prefix, row]) => declared.has(prefix) && !row.includes(`${declared.get(prefix)}/`))
      .map(([prefix]) => `${prefix} is built in ${declared.get(prefix)}`);

    // assess
    expect(documented).toEqual([...declared.keys()].sort());
    expect(wrongOwner).toEqual([]);
  });
});

describe('the keys each module builds', () => {
  it.each([
    [
      'packages/bridge/src/ingest',
      ingestProgressKey({ bucket: 'drops', key: 'in/Ä b.csv', etag: '"9b2c"', sequencer: '00A1' }),
      'ingest/drops/83b55d16708533acdd76288c1b0d0399573357e6fcddf85daa143cf79535af3a/e-9b2c.00A1.json',
    ],
    [
      'packages/bridge/src/ingest',
      ingestProgressKey({ bucket: 'drops', key: 'in/items.csv', versionId: 'L4kq.tJ_l' }),
      'ingest/drops/c4126144f479c4267fe81f55df2004a2641a9d4a2acc07fad1e392f4b50f69e8/v-L4kq!2EtJ!5Fl.json',
    ],
    ['packages/bridge/src/polling', checkpointKey('messaging-assets'), 'checkpoints/messaging-assets.json'],
    ['packages/bridge/src/polling', MESSAGING_ASSETS_AUDIT_KEY, 'audits/messaging-assets.json'],
    ['packages/bridge/src/polling', reviewProgressKey(7), 'review-progress/07.json'],
    ['packages/bridge/src/polling', reviewProgressKey(3, 9), 'review-progress/L9/3.json'],
    ['packages/bridge/src/polling', PROGRESS_LAYOUT_KEY, 'review-progress/layout.json'],
    [
      'packages/bridge/src/publications',
      publicationKey('2f0c7a6e-5d41-8b3a-9c2e-6f1d0a4b7e93'),
      'publications/2f0c7a6e-5d41-8b3a-9c2e-6f1d0a4b7e93.json',
    ],
    [
      'packages/bridge/src/publications',
      idempotencyKey('order-42', 'arn:aws:iam::1:user/alice'),
      'idempotency/6e8ed70b9461411103fc85c06688a035a491914b2c0b350ff1e817004b1196fd.json',
    ],
    [
      'packages/bridge/src/publications',
      idempotencyKey('k-1'),
      'idempotency/86c9269006019bef38fc238a61067d92a331c832cc5c848afc1c326b45f3e0b4.json',
    ],
    ['packages/bridge/src/events', claimCheckKey('evt/1'), 'claim-check/evt!2F1.json'],
    [
      'packages/bridge/src/events',
      publishFailuresKey(new Date('2026-12-07T06:59:59.999Z')),
      'publish-failures/2026-12-07T06.json',
    ],
    [
      'packages/bridge/src/confirmations',
      confirmationKey('4000000000001', 'gdsn-de'),
      'confirmations/4000000000001/gdsn-de/_.json',
    ],
    [
      'packages/bridge/src/confirmations',
      confirmationKey('4000000000001', 'gdsn-de', { recipientGln: '4012345000009', targetMarket: '276' }),
      'confirmations/4000000000001/gdsn-de/4012345000009.276.json',
    ],
    [
      'packages/bridge/src/confirmations',
      confirmationKey('4000000000001', 'gdsn-de', { targetMarket: '276' }),
      'confirmations/4000000000001/gdsn-de/-.276.json',
    ],
    ['packages/bridge/src/confirmations', confirmationItemPrefix('a/b'), 'confirmations/a!2Fb/'],
    [
      'packages/bridge/src/confirmations',
      confirmationChannelPrefix('a/b', 'c d'),
      'confirmations/a!2Fb/c!20d/',
    ],
    [
      'packages/bridge/src/confirmations',
      confirmationDeadlineKey('2026-11-26T12:00:00.000Z', 'p-1'),
      'confirmation-deadlines/2026-11-26T12!3A00!3A00.000Z/1dee6e3ec67dc8033b3363d93f46f1affea85aa403abe01a03fc6c21cbff1c15.json',
    ],
    ['packages/bridge/src/state', watchKey('a/b c'), 'watch/a!2Fb!20c.json'],
    ['packages/bridge/src/state', leaseKey('poll-supplier-reviews'), 'leases/poll-supplier-reviews.json'],
  ])('%s builds %s as before', (_module, built, expected) => {
    // assess
    expect(built).toBe(expected);
  });

  it('reads the deadline back from a deadline mark', () => {
    // act & assess
    const mark = confirmationDeadlineKey('2026-11-26T12:00:00.000Z', 'p-1');
    expect(mark.startsWith(CONFIRMATION_DEADLINES_PREFIX)).toBe(true);
    expect(deadlineOfConfirmationDeadlineKey(mark)).toBe('2026-11-26T12:00:00.000Z');
  });

  it('keeps idempotency keys of different scopes apart', () => {
    // act & assess
    expect(idempotencyKey('k', 'caller-a')).not.toBe(idempotencyKey('k', 'caller-b'));
    expect(idempotencyKey('a:b', 'c')).not.toBe(idempotencyKey('b', 'c:a'));
    expect(idempotencyKey('k', 'caller-a')).toBe(idempotencyKey('k', 'caller-a'));
    expect(() => idempotencyKey('')).toThrow(TypeError);
  });
});
