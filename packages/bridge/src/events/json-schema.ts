/**
 * The JSON Schema (draft 2020-12) of each event type's data, generated from the zod schemas that
 * `createEvent` checks the data against, so the two cannot disagree. `npm run schemas` writes them to
 * schemas/events/<type>/v<version>.json; test/unit/events-schemas.test.ts keeps the files equal to
 * what this produces and refuses a breaking change within a version.
 */
import * as z from '../core/zod.ts';
import { dataSchemaUri, EVENT_DATA_VERSIONS } from './dataschema.ts';
import { EVENT_DATA_SCHEMAS, type EventType } from './types.ts';

/** A JSON Schema document or subschema. */
export type JsonSchema = { [keyword: string]: unknown };

/**
 * The JSON Schema of `type`'s data, with the event's `dataschema` as its `$id`.
 *
 * Generated for what the bridge may send (zod's input side): objects do not forbid properties they
 * do not list, so a consumer validating with this schema keeps accepting events after a field is
 * added (docs/events.md, "Schemas and versions").
 *
 * @example
 * const schema = eventDataJsonSchema('pds.ingest.failed');
 * schema.$id; // 'urn:pds-bridge:schemas/events/pds.ingest.failed/v1.json'
 */
export function eventDataJsonSchema(type: EventType): JsonSchema {
  const { $schema, ...generated } = z.toJSONSchema(EVENT_DATA_SCHEMAS[type], {
    target: 'draft-2020-12',
    io: 'input',
  });
  // zod cannot express the refinements (which of document / parseError / messageError is set);
  // where it matters they are written out with .meta() beside them in types.ts.
  return {
    $schema,
    $id: dataSchemaUri(type),
    title: `${type} data, version ${EVENT_DATA_VERSIONS[type]}`,
    ...generated,
  };
}
