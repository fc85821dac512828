/**
 * The demo data model as the `/v1/datamodel` operations show it: the whole document (`current`), key
 * retrieval with filters, default items and export formats. Everything derives from the definitions in
 * datamodel.ts, so what validation enforces and what the data model shows never drift apart.
 */
import type { Item } from '@pds-bridge/bridge/pds';
import type {
  DataModel,
  DataModelAttribute,
  DataModelCategory,
  DataModelEnum,
  DataModelRetrievalKind,
  DataModelRetrievalQuery,
  ExportFormat,
  ExportFormatsByKey,
} from '@pds-bridge/bridge/pds/resources';
import {
  DEMO_ATTRIBUTE_EXTENSIONS,
  DEMO_CATEGORIES,
  DEMO_DATA_MODEL,
  DEMO_DATA_MODEL_NAME,
  DEMO_DATA_MODEL_VERSION,
  DEMO_ENUMS,
  DEMO_EXPORT_FORMATS,
  DEMO_LAYOUTS,
} from './datamodel.ts';

/** One retrievable element, with the fields every filter reads (see docs/spec-gaps.md). */
interface Retrievable {
  key: string;
  label: string;
  name: string;
  code: string;
  parent: string | undefined;
  leaf: boolean;
  extension: string;
}

/**
 * The whole demo data model (`GET /v1/datamodel/current`).
 *
 * @example
 * dataModelDocument().categories.map((c) => c.key); // ['PRODUCT', 'PACKAGED', 'FOOD', 'BEVERAGE', 'NON_FOOD']
 */
export function dataModelDocument(): DataModel {
  return {
    name: DEMO_DATA_MODEL_NAME,
    version: DEMO_DATA_MODEL_VERSION,
    categories: categories(),
    attributes: attributes(),
    enums: enums(),
    layouts: DEMO_LAYOUTS.map((layout) => ({
      name: layout.name,
      label: layout.label,
      sections: layout.sections.map((section) => ({
        label: section.label,
        attributes: [...section.attributes],
      })),
    })),
  };
}

/**
 * The keys of one kind that pass every filter (AND across filters, OR within a list filter), in model
 * order: category keys, attribute names, or `<enum>.<code>`.
 *
 * @example
 * retrieveKeys('enums', { name: ['measurementUnit'], q: 'litre' }); // ['measurementUnit.MLT', 'measurementUnit.LTR']
 */
export function retrieveKeys(kind: DataModelRetrievalKind, query: DataModelRetrievalQuery): string[] {
  if (query.dataModel !== undefined && query.dataModel !== DEMO_DATA_MODEL_NAME) return [];
  const q = query.q?.toLowerCase();
  const inList = (list: string[] | undefined, value: string | undefined) =>
    list === undefined || (value !== undefined && list.includes(value));
  const keys = retrievables(kind)
    .filter(
      (element) =>
        (q === undefined ||
          element.key.toLowerCase().includes(q) ||
          element.label.toLowerCase().includes(q)) &&
        (query.extension === undefined || element.extension === query.extension) &&
        (query.leaf === undefined || element.leaf === query.leaf) &&
        inList(query.parent, element.parent) &&
        inList(query.name, element.name) &&
        inList(query.code, element.code),
    )
    .map((element) => element.key);
  return query.limit === undefined ? keys : keys.slice(0, query.limit);
}

/**
 * The default item of a category: the defaults of its ancestors, overridden by its own; undefined for
 * an unknown category.
 *
 * @example
 * defaultItemFor('FOOD'); // { netContentUnit: 'GRM', category: 'FOOD' }
 */
export function defaultItemFor(category: string): Item | undefined {
  const chain: string[] = [];
  for (let key: string | undefined = category; key !== undefined; ) {
    const definition = DEMO_CATEGORIES.find((candidate) => candidate.key === key);
    if (!definition) return undefined;
    chain.unshift(definition.key);
    key = definition.parent;
  }
  const item: Item = {};
  for (const key of chain) Object.assign(item, DEMO_CATEGORIES.find((c) => c.key === key)?.defaults);
  return item;
}

/**
 * The export formats: an array of records, or with `returnKeyValueFormat` an object keyed by format key;
 * `mappings` only with `includeExportMappings`.
 *
 * @example
 * exportFormats({ includeExportMappings: true }); // [{ key: 'CSV', ..., mappings: [...] }, ...]
 */
export function exportFormats({
  includeExportMappings = false,
  returnKeyValueFormat = false,
}: {
  includeExportMappings?: boolean;
  returnKeyValueFormat?: boolean;
}): ExportFormat[] | ExportFormatsByKey {
  const formats: ExportFormat[] = DEMO_EXPORT_FORMATS.map(({ mappings, ...format }) =>
    includeExportMappings
      ? { ...format, mappings: mappings.map((mapping) => ({ ...mapping })) }
      : { ...format },
  );
  if (!returnKeyValueFormat) return formats;
  return Object.fromEntries(formats.map(({ key, ...format }) => [key, format]));
}

function categories(): DataModelCategory[] {
  return DEMO_CATEGORIES.map((category) => {
    const record: DataModelCategory = {
      key: category.key,
      label: category.label,
      leaf: !DEMO_CATEGORIES.some((other) => other.parent === category.key),
      extension: category.extension,
      attributes: [...category.attributes],
      defaults: { ...category.defaults },
    };
    if (category.parent !== undefined) record.parent = category.parent;
    return record;
  });
}

function attributes(): DataModelAttribute[] {
  return DEMO_DATA_MODEL.map((attribute) => {
    const record: DataModelAttribute = {
      name: attribute.name,
      label: attribute.label,
      type: attribute.type,
      required: attribute.required === true,
      category: introducingCategory(attribute.name),
      extension: DEMO_ATTRIBUTE_EXTENSIONS[attribute.name] ?? 'core',
    };
    const enumDefinition = DEMO_ENUMS.find((candidate) => candidate.attribute === attribute.name);
    if (enumDefinition) record.enum = enumDefinition.name;
    return record;
  });
}

function enums(): DataModelEnum[] {
  return DEMO_ENUMS.map((definition) => ({
    name: definition.name,
    label: definition.label,
    extension: definition.extension,
    codes: codesOf(definition.attribute).map((code) => ({
      code,
      label: definition.codeLabels[code] ?? code,
    })),
  }));
}

function retrievables(kind: DataModelRetrievalKind): Retrievable[] {
  switch (kind) {
    case 'categories':
      return categories().map((category) => ({
        key: category.key,
        label: category.label,
        name: category.key,
        code: category.key,
        parent: category.parent,
        leaf: category.leaf,
        extension: category.extension,
      }));
    case 'attributes':
      return attributes().map((attribute) => ({
        key: attribute.name,
        label: attribute.label,
        name: attribute.name,
        code: attribute.name,
        parent: attribute.category,
        leaf: true,
        extension: attribute.extension,
      }));
    case 'enums':
      return enums().flatMap((definition) =>
        definition.codes.map(({ code, label }) => ({
          key: `${definition.name}.${code}`,
          label,
          name: definition.name,
          code,
          parent: definition.name,
          leaf: true,
          extension: definition.extension,
        })),
      );
  }
}

function introducingCategory(attributeName: string): string {
  return DEMO_CATEGORIES.find((category) => category.attributes.includes(attributeName))?.key ?? 'PRODUCT';
}

function codesOf(attributeName: string): readonly string[] {
  return DEMO_DATA_MODEL.find((attribute) => attribute.name === attributeName)?.values ?? [];
}
