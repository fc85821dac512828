import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { breakingChanges } from '../../packages/bridge/src/events/compatibility.ts';
import { contractFiles, contractText } from '../../packages/bridge/src/events/contracts.ts';
import {
  DATA_SCHEMA_URN_PREFIX,
  dataSchemaPath,
  EVENT_DATA_VERSIONS,
} from '../../packages/bridge/src/events/dataschema.ts';
import { exampleEvents } from '../../packages/bridge/src/events/examples.ts';
import {
  createEvent,
  EVENT_DATA_SCHEMAS,
  EVENT_TYPES,
  type EventType,
} from '../../packages/bridge/src/events/index.ts';
import { eventSchemaValidator } from '../helpers/json-schema.ts';

const root = path.resolve(import.meta.dirname, '../..');
const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
const dataSchemaFiles = contractFiles(version).filter((file) => file.dataSchema !== undefined);

const readCommitted = (file: string): string | undefined => {
  try {
    return readFileSync(path.join(root, file), 'utf8');
  } catch {
    return undefined;
  }
};

/** Every committed data schema file, as the package ships them, in one validator (looked up by $id). */
function validatorOfCommittedSchemas() {
  const ajv = eventSchemaValidator();
  for (const type of readdirSync(path.join(root, 'schemas/events'))) {
    for (const file of readdirSync(path.join(root, 'schemas/events', type))) {
      ajv.addSchema(JSON.parse(readFileSync(path.join(root, 'schemas/events', type, file), 'utf8')));
    }
  }
  return ajv;
}

describe('the committed event data schemas (schemas/events)', () => {
  it.each(dataSchemaFiles.map((file) => [file.path, file] as const))(
    '%s is what `npm run schemas` generates from the zod schemas now',
    (file, generated) => {
      // prepare
      const committed = readCommitted(file);

      // assess
      expect(committed, `${file} is missing or out of date: run npm run schemas`).toBe(
        contractText(generated),
      );
    },
  );

  it.each(dataSchemaFiles.map((file) => [file.dataSchema?.type ?? '', file] as const))(
    '%s changes nothing that breaks consumers without a new version',
    (type, generated) => {
      // prepare
      const committed = readCommitted(generated.path);
      if (committed === undefined) return; // a new type or a new version: nothing to break yet

      // act
      const breaks = breakingChanges(JSON.parse(committed), generated.json);

      // assess
      expect(
        breaks,
        `breaking changes to ${type} v${EVENT_DATA_VERSIONS[type as EventType]}: make them additive, or raise its version in packages/bridge/src/events/dataschema.ts (docs/events.md, "Schemas and versions")`,
      ).toEqual([]);
    },
  );

  it('keeps a file for every version of every type up to the current one, and nothing else', () => {
    // act
    const committed = Object.fromEntries(
      readdirSync(path.join(root, 'schemas/events')).map((type) => [
        type,
        readdirSync(path.join(root, 'schemas/events', type)).sort(),
      ]),
    );

    // assess: earlier versions stay, frozen, for the consumers still reading them
    expect(committed).toEqual(
      Object.fromEntries(
        EVENT_TYPES.map((type) => [
          type,
          Array.from({ length: EVENT_DATA_VERSIONS[type] }, (_, index) => `v${index + 1}.json`).sort(),
        ]),
      ),
    );
  });

  it.each(EVENT_TYPES)(
    'names the schema file of %s in the dataschema of its events, and the file accepts their data',
    (type) => {
      // prepare
      const ajv = validatorOfCommittedSchemas();

      for (const event of exampleEvents()[type]) {
        // act
        const validate = ajv.getSchema(event.dataschema);

        // assess
        expect(event.dataschema).toBe(`${DATA_SCHEMA_URN_PREFIX}${dataSchemaPath(type)}`);
        expect(validate, `no committed schema has $id ${event.dataschema}`).toBeDefined();
        expect(validate?.(JSON.parse(JSON.stringify(event.data))), JSON.stringify(validate?.errors)).toBe(
          true,
        );
      }
    },
  );

  it('refuses, like createEvent, a messaging asset with both a document and a parse error', () => {
    // prepare
    const ajv = validatorOfCommittedSchemas();
    const [parsed, broken] = exampleEvents()['pds.messaging-asset.received'];
    const both = { ...parsed?.data, parseError: broken?.data.parseError };
    const neither = { messagingAssetId: 7 };

    // act
    const validate = ajv.getSchema(
      `${DATA_SCHEMA_URN_PREFIX}${dataSchemaPath('pds.messaging-asset.received')}`,
    );

    // assess
    expect(EVENT_DATA_SCHEMAS['pds.messaging-asset.received'].safeParse(both).success).toBe(false);
    expect(validate?.(both)).toBe(false);
    expect(validate?.(neither)).toBe(false);
  });

  it('accepts a field added later, so a consumer holding this copy keeps working', () => {
    // prepare
    const ajv = validatorOfCommittedSchemas();
    const event = createEvent({
      type: 'pds.publication.failed',
      subject: 'publication/p-1',
      idParts: ['p-1'],
      data: { publicationId: 'p-1', code: 'rejected', reason: 'unknown keys', retryable: false },
    });

    // act
    const valid = ajv.getSchema(event.dataschema)?.({ ...event.data, addedInALaterRelease: true });

    // assess
    expect(valid).toBe(true);
  });
});

describe('the consumer package (packages/consumer, published as pds-bridge)', () => {
  const consumerPackage = JSON.parse(
    readFileSync(path.join(root, 'packages', 'consumer', 'package.json'), 'utf8'),
  ) as {
    version: string;
    exports: Record<string, unknown>;
    files: string[];
    dependencies: Record<string, string>;
  };

  it('maps pds-bridge/schemas/<path> onto the schemas it packs, at the version the dataschemas name', () => {
    // The build copies schemas/ into the package (scripts/build-consumer.ts); packing and resolving
    // the copy is test/integration/consumer-install.test.ts.
    expect(consumerPackage.exports['./schemas/*']).toBe('./schemas/*');
    expect(consumerPackage.files).toContain('schemas/');
    expect(consumerPackage.version).toBe(version);
    for (const type of EVENT_TYPES) {
      const uri = exampleEvents()[type][0]?.dataschema ?? '';
      const file = path.join(root, uri.replace(DATA_SCHEMA_URN_PREFIX, ''));
      expect(JSON.parse(readFileSync(file, 'utf8')).$id).toBe(uri);
    }
  });

  it('depends on zod, @aws-sdk/client-s3 and @streamparser/json only, in the ranges the bridge itself is built and tested with', () => {
    const bridge = JSON.parse(
      readFileSync(path.join(root, 'packages', 'bridge', 'package.json'), 'utf8'),
    ) as {
      dependencies: Record<string, string>;
    };

    expect(Object.keys(consumerPackage.dependencies).sort()).toEqual([
      '@aws-sdk/client-s3',
      '@streamparser/json',
      'zod',
    ]);
    for (const [name, range] of Object.entries(consumerPackage.dependencies)) {
      expect(range, name).toBe(bridge.dependencies[name]);
    }
  });
});
