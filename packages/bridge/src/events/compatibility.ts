/**
 * Whether a new revision of an event type's data schema may keep the version (and `dataschema`) of
 * the previous one. Within a version, every event the previous revision accepted (events still in a
 * queue or a dead-letter queue) must stay valid, and every event the new revision accepts must be
 * valid for a consumer still holding the previous copy — except for the two additions the policy in
 * docs/events.md allows: a new optional property and a new enum value. Anything else that changes
 * which data is valid is a breaking change and needs a new version.
 */
import { isDeepStrictEqual } from 'node:util';
import type { JsonSchema } from './json-schema.ts';

/** Keywords that only describe: changing them changes no event's validity. */
const ANNOTATIONS = new Set([
  '$schema',
  '$id',
  '$comment',
  'title',
  'description',
  'examples',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
]);

/** Keywords holding one subschema, compared keyword by keyword in turn. */
const SUBSCHEMA = new Set(['items', 'additionalProperties', 'propertyNames', 'not', 'contains']);

/** Keywords holding a list of subschemas, compared position by position. */
const SUBSCHEMA_LIST = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);

const isSchema = (value: unknown): value is JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const asStrings = (value: unknown): string[] =>
  Array.isArray(value) ? value.map(String) : value === undefined ? [] : [String(value)];

const show = (value: unknown): string => (value === undefined ? 'nothing' : JSON.stringify(value));

const at = (path: string): string => path || '(root)';

/**
 * The breaking changes from `previous` to `current`, one line each naming where and what (empty when
 * `current` may keep the version).
 *
 * @example
 * breakingChanges(
 *   { type: 'object', properties: { a: { type: 'string' } } },
 *   { type: 'object', properties: { b: { type: 'string' } } },
 * ); // ['a: removed (a rename is a removal)']
 */
export function breakingChanges(previous: unknown, current: unknown, path = ''): string[] {
  if (!isSchema(previous) || !isSchema(current)) {
    return isDeepStrictEqual(previous, current)
      ? []
      : [`${at(path)}: schema changed from ${show(previous)} to ${show(current)}`];
  }
  const breaks: string[] = [];
  const keywords = new Set([...Object.keys(previous), ...Object.keys(current)]);
  for (const keyword of keywords) {
    if (ANNOTATIONS.has(keyword)) continue;
    const before = previous[keyword];
    const after = current[keyword];
    if (keyword === 'properties') breaks.push(...propertyChanges(previous, current, path));
    else if (keyword === 'required') breaks.push(...requiredChanges(previous, current, path));
    else if (keyword === 'enum') breaks.push(...enumChanges(before, after, path));
    else if (keyword === 'type') breaks.push(...typeChanges(before, after, path));
    else if (SUBSCHEMA.has(keyword) && before !== undefined && after !== undefined) {
      breaks.push(
        ...breakingChanges(before, after, keyword === 'items' ? `${path}[]` : `${path}/${keyword}`),
      );
    } else if (SUBSCHEMA_LIST.has(keyword) && Array.isArray(before) && Array.isArray(after)) {
      breaks.push(...listChanges(keyword, before, after, path));
    } else if (!isDeepStrictEqual(before, after)) {
      breaks.push(`${at(path)}: ${keyword} changed from ${show(before)} to ${show(after)}`);
    }
  }
  return breaks;
}

function propertyChanges(previous: JsonSchema, current: JsonSchema, path: string): string[] {
  const before = isSchema(previous.properties) ? previous.properties : {};
  const after = isSchema(current.properties) ? current.properties : {};
  const breaks: string[] = [];
  for (const [name, schema] of Object.entries(before)) {
    const child = path ? `${path}.${name}` : name;
    if (!(name in after)) breaks.push(`${child}: removed (a rename is a removal)`);
    else breaks.push(...breakingChanges(schema, after[name], child));
  }
  // A consumer's copy that refused unlisted properties would refuse the new one.
  if (previous.additionalProperties === false) {
    for (const name of Object.keys(after).filter((name) => !(name in before))) {
      breaks.push(
        `${path ? `${path}.${name}` : name}: added where the previous schema refused other properties`,
      );
    }
  }
  return breaks;
}

function requiredChanges(previous: JsonSchema, current: JsonSchema, path: string): string[] {
  const before = asStrings(previous.required);
  const after = asStrings(current.required);
  const child = (name: string) => (path ? `${path}.${name}` : name);
  const removedProperty = (name: string) =>
    isSchema(previous.properties) &&
    name in previous.properties &&
    !(isSchema(current.properties) && name in current.properties);
  return [
    // A removed property is reported once, as removed.
    ...before
      .filter((name) => !after.includes(name) && !removedProperty(name))
      .map((name) => `${child(name)}: no longer required (consumers rely on it being there)`),
    ...after
      .filter((name) => !before.includes(name))
      .map((name) => `${child(name)}: newly required (events already queued do not have it)`),
  ];
}

function enumChanges(before: unknown, after: unknown, path: string): string[] {
  if (!Array.isArray(before) || !Array.isArray(after)) {
    return isDeepStrictEqual(before, after)
      ? []
      : [`${at(path)}: enum changed from ${show(before)} to ${show(after)}`];
  }
  return before
    .filter((value) => !after.some((kept) => isDeepStrictEqual(kept, value)))
    .map((value) => `${at(path)}: enum value ${show(value)} removed`);
}

function typeChanges(before: unknown, after: unknown, path: string): string[] {
  const was = asStrings(before).sort();
  const is = asStrings(after).sort();
  if (isDeepStrictEqual(was, is)) return [];
  // No type at all accepts every type: dropping the keyword widens.
  const narrowed = is.length > 0 && is.every((type) => was.includes(type));
  return [`${at(path)}: type ${narrowed ? 'narrowed' : 'changed'} from ${show(before)} to ${show(after)}`];
}

function listChanges(keyword: string, before: unknown[], after: unknown[], path: string): string[] {
  if (before.length !== after.length) {
    return [`${at(path)}: ${keyword} changed from ${before.length} to ${after.length} alternatives`];
  }
  return before.flatMap((schema, index) =>
    breakingChanges(schema, after[index], `${path}/${keyword}/${index}`),
  );
}
