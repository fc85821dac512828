/**
 * Other code — the bridge's other rooms, the workshop's packages, scripts and benchmarks — reaches the
 * bridge's core, xml, pds, events, state and api rooms and the pollers' rooms
 * (packages/bridge/src/<room>, packages/bridge/src/polling/<poller>) through their entries only, so what they export is their whole public surface and their inside can change freely
 * (docs/architecture.md, Public surfaces).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importedFiles, sourceFiles } from '../helpers/module-imports.ts';

interface Surface {
  /** The module's folder. */
  module: string;
  /** The files other code may import. */
  entries: readonly string[];
  /** The folders whose files must keep to them. */
  importers: readonly string[];
}

const SURFACES: readonly Surface[] = [
  {
    module: 'packages/bridge/src/core/',
    // suggest.ts is its own subpath: only the pds command and packaging use it, so no Lambda bundle
    // carries its edit-distance dependency. zod.ts (zod/mini with classic zod's messages) and lazy.ts
    // (schemas built on first use) are their own subpaths so that what imports the entry loads no zod.
    entries: [
      'packages/bridge/src/core/index.ts',
      'packages/bridge/src/core/suggest.ts',
      'packages/bridge/src/core/zod.ts',
      'packages/bridge/src/core/lazy.ts',
    ],
    importers: ['packages', 'scripts', 'bench'],
  },
  {
    // bench/xml.ts compares the one-pass parser with fast-xml-parser's, which only it and the tests
    // need, so that inside stays out of the entry.
    module: 'packages/bridge/src/xml/',
    entries: ['packages/bridge/src/xml/index.ts'],
    importers: ['packages', 'scripts'],
  },
  {
    module: 'packages/bridge/src/pds/',
    entries: ['packages/bridge/src/pds/index.ts', 'packages/bridge/src/pds/resources/index.ts'],
    importers: ['packages', 'scripts', 'bench'],
  },
  {
    // scripts/ builds the contracts and examples from packages/bridge/src/events' tooling files, which the entry
    // leaves out so that no Lambda bundle carries them. The entry is the envelope, the types and the
    // publishing port; each type's data, the claim-check pointer format and the data schemas' URIs
    // are entries of their own.
    module: 'packages/bridge/src/events/',
    entries: [
      'packages/bridge/src/events/index.ts',
      'packages/bridge/src/events/data/index.ts',
      'packages/bridge/src/events/claim-check.ts',
      'packages/bridge/src/events/dataschema.ts',
      'packages/bridge/src/events/sqs/index.ts',
      'packages/bridge/src/events/eventbridge/index.ts',
    ],
    importers: ['packages'],
  },
  {
    // The S3 adapter has its own entry because it loads the AWS SDK, which building records must not;
    // what is built on the port (claims, leases, the watch list, the activity index) has its own too.
    module: 'packages/bridge/src/state/',
    entries: [
      'packages/bridge/src/state/index.ts',
      'packages/bridge/src/state/claim.ts',
      'packages/bridge/src/state/lease.ts',
      'packages/bridge/src/state/watch-list.ts',
      'packages/bridge/src/state/activity-index.ts',
      'packages/bridge/src/state/s3/index.ts',
    ],
    importers: ['packages', 'scripts', 'bench'],
  },
  {
    // The api function's factory has its own entry because it loads the runtime and the AWS SDK,
    // which building the API from fakes (tests, benchmarks) does not need.
    module: 'packages/bridge/src/api/',
    entries: ['packages/bridge/src/api/index.ts', 'packages/bridge/src/api/handlers.ts'],
    importers: ['packages', 'scripts', 'bench'],
  },
  {
    // Each poller is a room of its own (packages/bridge/src/polling/messaging-assets/, packages/bridge/src/polling/supplier-reviews/):
    // its stages are its inside; the handlers, the CLI, ops and the benchmarks use its index. The
    // review fan-out's SQS queue has its own entry because it loads the AWS SDK, and so do the review
    // progress shards, which the API's watch routes read without loading the poller.
    module: 'packages/bridge/src/polling/messaging-assets/',
    entries: ['packages/bridge/src/polling/messaging-assets/index.ts'],
    importers: ['packages', 'scripts', 'bench'],
  },
  {
    module: 'packages/bridge/src/polling/supplier-reviews/',
    entries: [
      'packages/bridge/src/polling/supplier-reviews/index.ts',
      'packages/bridge/src/polling/supplier-reviews/review-progress.ts',
      'packages/bridge/src/polling/supplier-reviews/sqs/review-queue.ts',
    ],
    importers: ['packages', 'scripts', 'bench'],
  },
];

/** `importer → imported` for every import into `surface.module` past its entries. */
function deepImports(surface: Surface): string[] {
  const found: string[] = [];
  for (const file of surface.importers.flatMap(sourceFiles)) {
    if (file.startsWith(surface.module)) continue;
    for (const target of importedFiles(file)) {
      if (target.startsWith(surface.module) && !surface.entries.includes(target)) {
        found.push(`${file} → ${target}`);
      }
    }
  }
  return found;
}

describe('module surfaces', () => {
  it.each(SURFACES.map((surface) => [surface.module, surface] as const))(
    'other code imports %s through its entries only',
    (_module, surface) => {
      // act
      const found = deepImports(surface);

      // assess: import from the entry, or export what is missing from it
      expect(found).toEqual([]);
    },
  );

  it.each(SURFACES.flatMap((surface) => surface.entries).map((entry) => [entry] as const))(
    'entry %s exists and names what it exports (no `export *`)',
    (entry) => {
      // act
      const text = readFileSync(entry, 'utf8');

      // assess: a surface is read in its entry, name by name (core/zod.ts, a facade over zod/mini,
      // re-exports the library whole: only our own modules must be named)
      expect(
        text.split('\n').filter((line) => /^\s*export\s+(type\s+)?\*.*\sfrom\s+['"]\./.test(line)),
      ).toEqual([]);
    },
  );
});
