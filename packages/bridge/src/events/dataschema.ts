/**
 * The version of each event type's data schema and the `dataschema` URI every event carries. A
 * version is raised only for a breaking change (test/unit/events-schemas.test.ts refuses one
 * otherwise); the policy consumers rely on is in docs/events.md, "Schemas and versions".
 */
import type { EventType } from './types.ts';

/** The current data-schema version of each event type. */
export const EVENT_DATA_VERSIONS = Object.freeze({
  'pds.ingest.completed': 1,
  'pds.ingest.failed': 1,
  'pds.messaging-asset.received': 1,
  'pds.supplier-review.received': 1,
  'pds.publication.completed': 1,
  'pds.publication.failed': 1,
  'pds.confirmation.changed': 1,
  'pds.webhook.endpoint-disabled': 1,
} as const satisfies { [T in EventType]: number });

/**
 * What a `dataschema` URI starts with. CloudEvents wants an absolute URI; the bridge owns no web
 * address to serve schemas from, so the URI is a URN whose rest is the schema's path in the package:
 * replacing this prefix with `pds-bridge/` gives the module specifier of the file.
 */
export const DATA_SCHEMA_URN_PREFIX = 'urn:pds-bridge:';

/**
 * The schema file of an event type's data, relative to the package root.
 *
 * @example
 * dataSchemaPath('pds.ingest.failed', 1); // 'schemas/events/pds.ingest.failed/v1.json'
 */
export function dataSchemaPath(type: EventType, version: number = EVENT_DATA_VERSIONS[type]): string {
  return `schemas/events/${type}/v${version}.json`;
}

/**
 * The `dataschema` of an event type's events, which is also the `$id` of its schema file.
 *
 * @example
 * dataSchemaUri('pds.ingest.failed'); // 'urn:pds-bridge:schemas/events/pds.ingest.failed/v1.json'
 */
export function dataSchemaUri(type: EventType, version: number = EVENT_DATA_VERSIONS[type]): string {
  return `${DATA_SCHEMA_URN_PREFIX}${dataSchemaPath(type, version)}`;
}
