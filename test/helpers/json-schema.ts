import { Ajv2020 } from 'ajv/dist/2020.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A JSON Schema 2020-12 validator for the event contracts: strict, every error reported, and the
 * formats the envelope uses checked (uuid, date-time; uri-reference accepts any string).
 * strictRequired stays off: the data schemas' `oneOf: [{ required: ['document'] }, …]` names
 * properties defined beside it, as intended.
 *
 * @example
 * const ajv = eventSchemaValidator();
 * ajv.addSchema(schema);
 * ajv.getSchema(event.dataschema)?.(event.data); // true
 */
export function eventSchemaValidator(): Ajv2020 {
  return new Ajv2020({ strict: true, strictRequired: false, allErrors: true })
    .addFormat('uuid', UUID)
    .addFormat('date-time', (value: string) => RFC3339.test(value) && !Number.isNaN(Date.parse(value)))
    .addFormat('uri-reference', true);
}
