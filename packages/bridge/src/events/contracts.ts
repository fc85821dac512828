/**
 * The event contract files the repository commits and the package ships: each event type's data
 * schema at its current version and the AsyncAPI document. `npm run schemas` writes them;
 * test/unit/events-schemas.test.ts fails when the committed files differ from these or when a
 * change within a version breaks consumers (./compatibility.ts).
 *
 * Build-time only, like ./examples.ts: not exported from ./index.ts.
 */
import { asyncApiDocument } from './asyncapi.ts';
import { dataSchemaPath, EVENT_DATA_VERSIONS } from './dataschema.ts';
import { eventDataJsonSchema, type JsonSchema } from './json-schema.ts';
import { EVENT_TYPES, type EventType } from './types.ts';

/** Where the AsyncAPI document is, relative to the package root. */
export const ASYNCAPI_PATH = 'schemas/asyncapi.json';

/** One generated file: its path relative to the package root, and its content. */
export interface ContractFile {
  path: string;
  json: JsonSchema;
  /** Set for a data schema: the type and version it is the schema of. */
  dataSchema?: { type: EventType; version: number };
}

/** A file's text as written: two-space JSON and a final newline. */
export function contractText(file: ContractFile): string {
  return `${JSON.stringify(file.json, null, 2)}\n`;
}

/**
 * Every generated contract file; `version` is the package's, for the AsyncAPI document's info.
 *
 * @example
 * for (const file of contractFiles('0.1.0')) writeFileSync(file.path, contractText(file));
 */
export function contractFiles(version: string): ContractFile[] {
  return [
    ...EVENT_TYPES.map((type) => ({
      path: dataSchemaPath(type),
      json: eventDataJsonSchema(type),
      dataSchema: { type, version: EVENT_DATA_VERSIONS[type] },
    })),
    { path: ASYNCAPI_PATH, json: asyncApiDocument(version) },
  ];
}
