import { describe, expect, it } from 'vitest';
import { breakingChanges } from '../../packages/bridge/src/events/compatibility.ts';
import type { JsonSchema } from '../../packages/bridge/src/events/json-schema.ts';

/** A small event-data schema in the shape zod generates, to change one thing at a time. */
const baseline = (): JsonSchema => ({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'urn:pds-bridge:schemas/events/pds.ingest.failed/v1.json',
  type: 'object',
  description: 'A dropped file could not be ingested.',
  properties: {
    key: { type: 'string', minLength: 1, description: 'The object key.' },
    code: { type: 'string', enum: ['gone', 'rejected'] },
    pdsStatus: { type: 'integer', minimum: 100, maximum: 599 },
    entries: {
      type: 'array',
      items: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
  },
  required: ['key', 'code'],
});

/** The baseline with `change` applied to a copy. */
function changed(change: (schema: JsonSchema & { properties: Record<string, JsonSchema> }) => void) {
  const schema = structuredClone(baseline()) as JsonSchema & { properties: Record<string, JsonSchema> };
  change(schema);
  return schema;
}

describe('breakingChanges refuses', () => {
  it('a removed field', () => {
    const current = changed((s) => delete s.properties.pdsStatus);

    expect(breakingChanges(baseline(), current)).toEqual(['pdsStatus: removed (a rename is a removal)']);
  });

  it('a renamed field, as the removal it is for consumers', () => {
    const current = changed((s) => {
      s.properties.objectKey = s.properties.key as JsonSchema;
      delete s.properties.key;
      s.required = ['objectKey', 'code'];
    });

    expect(breakingChanges(baseline(), current)).toEqual([
      'key: removed (a rename is a removal)',
      'objectKey: newly required (events already queued do not have it)',
    ]);
  });

  it('a narrowed type', () => {
    const current = changed((s) => {
      s.properties.pdsStatus = { type: 'integer', minimum: 100, maximum: 599 };
      s.properties.key = { type: ['string'], minLength: 1 };
    });
    const previous = changed((s) => {
      s.properties.key = { type: ['string', 'null'], minLength: 1 };
    });

    expect(breakingChanges(previous, current)).toEqual([
      'key: type narrowed from ["string","null"] to ["string"]',
    ]);
  });

  it('a changed type, also when it widens', () => {
    const current = changed((s) => {
      s.properties.pdsStatus = { type: 'number', minimum: 100, maximum: 599 };
    });

    const untyped = changed((s) => {
      s.properties.key = { minLength: 1 };
    });

    expect(breakingChanges(baseline(), current)).toEqual([
      'pdsStatus: type changed from "integer" to "number"',
    ]);
    expect(breakingChanges(baseline(), untyped)).toEqual(['key: type changed from "string" to nothing']);
  });

  it('a new required field', () => {
    const current = changed((s) => {
      s.properties.size = { type: 'integer' };
      s.required = ['key', 'code', 'size'];
    });

    expect(breakingChanges(baseline(), current)).toEqual([
      'size: newly required (events already queued do not have it)',
    ]);
  });

  it('an optional field that becomes required, and a required one that becomes optional', () => {
    const current = changed((s) => {
      s.required = ['key', 'pdsStatus'];
    });

    expect(breakingChanges(baseline(), current)).toEqual([
      'code: no longer required (consumers rely on it being there)',
      'pdsStatus: newly required (events already queued do not have it)',
    ]);
  });

  it('a removed enum value', () => {
    const current = changed((s) => {
      s.properties.code = { type: 'string', enum: ['rejected'] };
    });

    expect(breakingChanges(baseline(), current)).toEqual(['code: enum value "gone" removed']);
  });

  it('a tightened or loosened constraint', () => {
    const current = changed((s) => {
      s.properties.key = { type: 'string', minLength: 2 };
      s.properties.pdsStatus = { type: 'integer', minimum: 100 };
    });

    expect(breakingChanges(baseline(), current)).toEqual([
      'key: minLength changed from 1 to 2',
      'pdsStatus: maximum changed from 599 to nothing',
    ]);
  });

  it('a change deep inside an array of objects, naming where', () => {
    const current = changed((s) => {
      s.properties.entries = { type: 'array', items: { type: 'object', properties: {}, required: [] } };
    });

    expect(breakingChanges(baseline(), current)).toEqual(['entries[].path: removed (a rename is a removal)']);
  });

  it('a new property where the previous schema refused unlisted ones', () => {
    const previous = changed((s) => {
      s.additionalProperties = false;
    });
    const current = changed((s) => {
      s.additionalProperties = false;
      s.properties.note = { type: 'string' };
    });

    expect(breakingChanges(previous, current)).toEqual([
      'note: added where the previous schema refused other properties',
    ]);
  });

  it('a new alternative in a oneOf', () => {
    const previous = changed((s) => {
      s.oneOf = [{ required: ['key'] }, { required: ['code'] }];
    });
    const current = changed((s) => {
      s.oneOf = [{ required: ['key'] }, { required: ['code'] }, { required: ['pdsStatus'] }];
    });

    expect(breakingChanges(previous, current)).toEqual(['(root): oneOf changed from 2 to 3 alternatives']);
  });
});

describe('breakingChanges allows', () => {
  it('the same schema', () => {
    expect(breakingChanges(baseline(), baseline())).toEqual([]);
  });

  it('a new optional field', () => {
    const current = changed((s) => {
      s.properties.note = { type: 'string', description: 'New, optional.' };
    });

    expect(breakingChanges(baseline(), current)).toEqual([]);
  });

  it('a new enum value', () => {
    const current = changed((s) => {
      s.properties.code = { type: 'string', enum: ['gone', 'rejected', 'archived'] };
    });

    expect(breakingChanges(baseline(), current)).toEqual([]);
  });

  it('new or changed descriptions, titles and examples', () => {
    const current = changed((s) => {
      s.description = 'Reworded.';
      s.title = 'pds.ingest.failed data';
      (s.properties.key as JsonSchema).description = 'The key, decoded.';
      (s.properties.code as JsonSchema).examples = ['gone'];
    });

    expect(breakingChanges(baseline(), current)).toEqual([]);
  });
});
