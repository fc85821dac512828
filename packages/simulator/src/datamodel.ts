/**
 * The simulator's small demo data model and its validation rules (POST /api/v1/validate, and the
 * review outcome of a publication). The Friday warning on `simple_date` reproduces the example of
 * docs/pds-interface.md exactly; the other rules use level `Error` (docs/spec-gaps.md).
 */
import type { Item, ValidationRequest, ValidationResponse, ValidationResult } from '@pds-bridge/bridge/pds';

/** One attribute of the demo data model. */
export interface AttributeDefinition {
  name: string;
  /** Display name used in messages, as the platform quotes it: 'Simple Date'. */
  label: string;
  type: 'key' | 'string' | 'number' | 'enum' | 'date';
  required?: boolean;
  values?: readonly string[];
}

/** The demo tenant's attributes; other keys of an item are accepted and not validated. */
export const DEMO_DATA_MODEL: readonly AttributeDefinition[] = [
  { name: 'primaryKey__', label: 'Primary Key', type: 'key', required: true },
  { name: 'name', label: 'Name', type: 'string', required: true },
  { name: 'category', label: 'Category', type: 'enum', values: ['FOOD', 'BEVERAGE', 'NON_FOOD'] },
  { name: 'netContent', label: 'Net Content', type: 'number' },
  {
    name: 'netContentUnit',
    label: 'Net Content Unit',
    type: 'enum',
    values: ['GRM', 'KGM', 'MLT', 'LTR', 'EA'],
  },
  { name: 'simple_date', label: 'Simple Date', type: 'date' },
];

/** Name of the demo data model: the `dataModel` filter of `GET /v1/datamodel/retrieval/{kind}`. */
export const DEMO_DATA_MODEL_NAME = 'demo';

/** Version of the demo data model, part of `GET /v1/datamodel/current`. */
export const DEMO_DATA_MODEL_VERSION = '1';

/** The extension each attribute belongs to: `core`, or `gdsn` for the GDSN trade-item measurements. */
export const DEMO_ATTRIBUTE_EXTENSIONS: Readonly<Record<string, string>> = {
  primaryKey__: 'core',
  name: 'core',
  category: 'core',
  netContent: 'gdsn',
  netContentUnit: 'gdsn',
  simple_date: 'core',
};

/** One category (class) of the demo data model; it introduces attributes that its descendants inherit. */
export interface CategoryDefinition {
  key: string;
  label: string;
  parent?: string;
  extension: string;
  /** Attributes introduced here, by name (every DEMO_DATA_MODEL attribute is introduced exactly once). */
  attributes: readonly string[];
  /** Default values set here; a descendant's defaults override its ancestors'. */
  defaults: Readonly<Record<string, unknown>>;
}

/**
 * The demo category tree: PRODUCT → PACKAGED → FOOD, BEVERAGE, NON_FOOD. The leaves' keys are the
 * values of the `category` attribute, and their default items set it.
 */
export const DEMO_CATEGORIES: readonly CategoryDefinition[] = [
  {
    key: 'PRODUCT',
    label: 'Product',
    extension: 'core',
    attributes: ['primaryKey__', 'name', 'category', 'simple_date'],
    defaults: {},
  },
  {
    key: 'PACKAGED',
    label: 'Packaged goods',
    parent: 'PRODUCT',
    extension: 'gdsn',
    attributes: ['netContent', 'netContentUnit'],
    defaults: { netContentUnit: 'EA' },
  },
  {
    key: 'FOOD',
    label: 'Food',
    parent: 'PACKAGED',
    extension: 'core',
    attributes: [],
    defaults: { category: 'FOOD', netContentUnit: 'GRM' },
  },
  {
    key: 'BEVERAGE',
    label: 'Beverage',
    parent: 'PACKAGED',
    extension: 'core',
    attributes: [],
    defaults: { category: 'BEVERAGE', netContentUnit: 'MLT' },
  },
  {
    key: 'NON_FOOD',
    label: 'Non-food',
    parent: 'PACKAGED',
    extension: 'core',
    attributes: [],
    defaults: { category: 'NON_FOOD' },
  },
];

/** A named list of codes; its codes are the `values` of the enum attribute it serves. */
export interface EnumDefinition {
  name: string;
  label: string;
  extension: string;
  /** The DEMO_DATA_MODEL attribute whose `values` are this enum's codes. */
  attribute: string;
  /** Display labels of the codes. */
  codeLabels: Readonly<Record<string, string>>;
}

/** The demo enums, one per enum attribute of DEMO_DATA_MODEL. */
export const DEMO_ENUMS: readonly EnumDefinition[] = [
  {
    name: 'categoryCode',
    label: 'Category',
    extension: 'core',
    attribute: 'category',
    codeLabels: { FOOD: 'Food', BEVERAGE: 'Beverage', NON_FOOD: 'Non-food' },
  },
  {
    name: 'measurementUnit',
    label: 'Measurement unit',
    extension: 'gdsn',
    attribute: 'netContentUnit',
    codeLabels: { GRM: 'gram', KGM: 'kilogram', MLT: 'millilitre', LTR: 'litre', EA: 'each' },
  },
];

/** The one layout of the demo data model: how an item form groups the attributes. */
export const DEMO_LAYOUTS = [
  {
    name: 'default',
    label: 'Item',
    sections: [
      { label: 'Identification', attributes: ['primaryKey__', 'name', 'category'] },
      { label: 'Content', attributes: ['netContent', 'netContentUnit'] },
      { label: 'Dates', attributes: ['simple_date'] },
    ],
  },
] as const;

/** One export format: built in (`SYSTEM`) or defined by the data model; `mappings` say where each attribute goes. */
export interface ExportFormatDefinition {
  key: string;
  label: string;
  source: 'SYSTEM' | 'DATA_MODEL';
  fileExtension: string;
  contentType: string;
  mappings: ReadonlyArray<{ attribute: string; column: string }>;
}

const SAME_NAME_MAPPINGS = DEMO_DATA_MODEL.map(({ name }) => ({ attribute: name, column: name }));

/** The export formats of the demo system and data model. */
export const DEMO_EXPORT_FORMATS: readonly ExportFormatDefinition[] = [
  {
    key: 'CSV',
    label: 'Comma-separated values',
    source: 'SYSTEM',
    fileExtension: 'csv',
    contentType: 'text/csv',
    mappings: SAME_NAME_MAPPINGS,
  },
  {
    key: 'JSON',
    label: 'JSON array of items',
    source: 'SYSTEM',
    fileExtension: 'json',
    contentType: 'application/json',
    mappings: SAME_NAME_MAPPINGS,
  },
  {
    key: 'GDSN_3_1',
    label: 'GDSN 3.1 trade item',
    source: 'DATA_MODEL',
    fileExtension: 'xml',
    contentType: 'application/xml',
    mappings: [
      { attribute: 'primaryKey__', column: 'tradeItem/gtin' },
      { attribute: 'name', column: 'tradeItem/tradeItemDescriptionInformation/descriptionShort' },
      { attribute: 'netContent', column: 'tradeItem/tradeItemMeasurements/netContent' },
      {
        attribute: 'netContentUnit',
        column: 'tradeItem/tradeItemMeasurements/netContent/@measurementUnitCode',
      },
    ],
  },
];

/** Lengths of the GTIN family (GTIN-8, -12, -13, -14); a numeric key of such a length must carry a valid check digit. */
const GTIN_LENGTHS = new Set([8, 12, 13, 14]);

/**
 * The GS1 mod-10 check digit of the digits before it (GTINs and GLNs alike).
 *
 * @example
 * gs1CheckDigit('0614141123452'.slice(0, -1)); // 2
 */
export function gs1CheckDigit(body: string): number {
  let sum = 0;
  for (let i = 0; i < body.length; i += 1) {
    const digit = Number(body[body.length - 1 - i]);
    sum += i % 2 === 0 ? digit * 3 : digit;
  }
  return (10 - (sum % 10)) % 10;
}

/** Appends the GS1 check digit: `withCheckDigit('061414112345')` is `'0614141123452'`. */
export function withCheckDigit(body: string): string {
  return `${body}${gs1CheckDigit(body)}`;
}

/** True for a string of digits only. */
export function isNumericKey(value: string): boolean {
  return /^\d+$/.test(value);
}

/**
 * Validates an item as POST /api/v1/validate does: results grouped by attribute name (attributes
 * without a result are left out), `attributeStates` NEW / CHANGED / UNCHANGED / REMOVED against
 * `oldItem`, and `calculations.gtin14` for a numeric primary key.
 *
 * @example
 * validateItem({ newItem: { primaryKey__: '1', name: 'x', simple_date: '2013-07-26' } }).validations.simple_date?.[0]?.level; // 'Warning'
 */
export function validateItem(request: ValidationRequest): ValidationResponse {
  const { newItem, oldItem, attributeNames } = request;
  const selected = (name: string) => attributeNames === undefined || attributeNames.includes(name);
  const validations: Record<string, ValidationResult[]> = {};
  for (const attribute of DEMO_DATA_MODEL) {
    if (!selected(attribute.name)) continue;
    const results = validateAttribute(attribute, newItem[attribute.name], oldItem);
    if (results.length > 0) validations[attribute.name] = results;
  }
  return {
    validations,
    attributeStates: attributeStates(newItem, oldItem, selected),
    calculations: calculations(newItem),
  };
}

/** Every validation problem of an item (all attributes, as a new item), in data-model order. */
export function problemsOf(item: Item): ValidationResult[] {
  return Object.values(validateItem({ newItem: item }).validations).flat();
}

function validateAttribute(
  attribute: AttributeDefinition,
  value: unknown,
  oldItem: Item | undefined,
): ValidationResult[] {
  if (value === undefined || value === null || value === '') {
    return attribute.required
      ? [error(attribute, 'required_validation', 'required', `'${attribute.label}' is required`, '')]
      : [];
  }
  switch (attribute.type) {
    case 'key':
      return validateKey(attribute, value, oldItem);
    case 'string':
      return typeof value === 'string' ? [] : [typeError(attribute, value, 'a string')];
    case 'number':
      return typeof value === 'number' && Number.isFinite(value)
        ? []
        : [typeError(attribute, value, 'a number')];
    case 'enum':
      return validateEnum(attribute, value);
    case 'date':
      return validateDate(attribute, value);
  }
}

function validateKey(
  attribute: AttributeDefinition,
  value: unknown,
  oldItem: Item | undefined,
): ValidationResult[] {
  if (typeof value !== 'string') return [typeError(attribute, value, 'a string')];
  const results: ValidationResult[] = [];
  const oldKey = oldItem?.primaryKey__;
  if (oldKey !== undefined && oldKey !== value) {
    results.push(
      error(
        attribute,
        'key_validation',
        'key_changed',
        `'${attribute.label}' cannot change (was '${oldKey}')`,
        value,
      ),
    );
  }
  if (isNumericKey(value) && GTIN_LENGTHS.has(value.length)) {
    const expected = gs1CheckDigit(value.slice(0, -1));
    if (Number(value.at(-1)) !== expected) {
      results.push(
        error(
          attribute,
          'gtin_validation',
          'gtin_check_digit',
          `'${attribute.label}' is not a valid GTIN: its check digit should be ${expected}`,
          value,
        ),
      );
    }
  }
  return results;
}

function validateEnum(attribute: AttributeDefinition, value: unknown): ValidationResult[] {
  const values = attribute.values ?? [];
  if (typeof value === 'string' && values.includes(value)) return [];
  return [
    error(
      attribute,
      'enum_validation',
      'invalid_enum',
      `'${attribute.label}' must be one of ${values.join(', ')}`,
      display(value),
    ),
  ];
}

function validateDate(attribute: AttributeDefinition, value: unknown): ValidationResult[] {
  const day = typeof value === 'string' ? parseIsoDate(value) : undefined;
  if (day === undefined) {
    return [
      error(
        attribute,
        'date_validation',
        'date_format',
        `'${attribute.label}' must be a date as YYYY-MM-DD`,
        display(value),
      ),
    ];
  }
  if (day.getUTCDay() !== 5) return [];
  // The documented example, reproduced field for field (docs/pds-interface.md, Fields).
  return [
    result(
      attribute,
      'simple_validation',
      'Warning',
      'friday',
      `'${attribute.label}' should not be a Friday`,
      String(value),
    ),
  ];
}

function parseIsoDate(value: string): Date | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return undefined;
  const [year, month, dayOfMonth] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, dayOfMonth));
  const roundTrips =
    date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === dayOfMonth;
  return roundTrips ? date : undefined;
}

function typeError(attribute: AttributeDefinition, value: unknown, expected: string): ValidationResult {
  return error(
    attribute,
    'type_validation',
    'wrong_type',
    `'${attribute.label}' must be ${expected}`,
    display(value),
  );
}

function error(attribute: AttributeDefinition, name: string, msgId: string, message: string, value: string) {
  return result(attribute, name, 'Error', msgId, message, value);
}

function result(
  attribute: AttributeDefinition,
  name: string,
  level: string,
  msgId: string,
  message: string,
  value: string,
): ValidationResult {
  return {
    name,
    level,
    path: [attribute.name],
    message,
    params: { msg_id: msgId, err_val: value, err_val_msg: `'${value}' ` },
  };
}

function display(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function attributeStates(
  newItem: Item,
  oldItem: Item | undefined,
  selected: (name: string) => boolean,
): Record<string, string> {
  const names = new Set([...Object.keys(newItem), ...Object.keys(oldItem ?? {})]);
  const states: Record<string, string> = {};
  for (const name of names) {
    if (!selected(name)) continue;
    if (!oldItem) states[name] = 'NEW';
    else if (!(name in newItem)) states[name] = 'REMOVED';
    else if (!(name in oldItem)) states[name] = 'NEW';
    else
      states[name] =
        JSON.stringify(newItem[name]) === JSON.stringify(oldItem[name]) ? 'UNCHANGED' : 'CHANGED';
  }
  return states;
}

function calculations(item: Item): Record<string, unknown> {
  const key = item.primaryKey__;
  if (typeof key === 'string' && isNumericKey(key) && key.length <= 14)
    return { gtin14: key.padStart(14, '0') };
  return {};
}
