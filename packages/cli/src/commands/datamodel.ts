/**
 * `pds datamodel …`: the `/v1/datamodel` operations.
 */
import type { ExportFormat } from '@pds-bridge/bridge/pds/resources';
import { booleanFlag, integerFlag, listFlag, stringFlag, trueFalseFlag } from '../args.ts';
import type { Command } from '../command.ts';
import { formatRecord, formatTable } from '../output.ts';
import { conditionalGetFlags, conditionalGetOptions, linesResult } from './shared.ts';

const retrieve: Command = {
  name: 'datamodel retrieve',
  summary: 'list the keys of categories, attributes or enum codes',
  description:
    'KIND is categories, attributes or enums (in the simulator). Filters combine with AND; the list filters\n' +
    '(--parent, --name, --code) are repeatable and comma-separated, and match any of their values.',
  args: 'KIND',
  minArgs: 1,
  maxArgs: 1,
  options: {
    q: { type: 'string', value: 'TEXT', description: 'text in the key or label' },
    'data-model': { type: 'string', value: 'NAME', description: 'name of the data model' },
    extension: { type: 'string', value: 'NAME', description: 'extension the element belongs to' },
    leaf: {
      type: 'string',
      value: 'true|false',
      description: 'only leaves (true) or only inner ones (false)',
    },
    parent: { type: 'string', multiple: true, value: 'P', description: 'parent category or enum name' },
    name: { type: 'string', multiple: true, value: 'N', description: 'category key, attribute or enum name' },
    code: { type: 'string', multiple: true, value: 'C', description: 'category key, attribute name or code' },
    limit: { type: 'string', value: 'N', description: 'at most N keys' },
  },
  examples: [
    'pds datamodel retrieve categories --leaf true',
    'pds datamodel retrieve enums --name measurementUnit --code GRM,KGM',
  ],
  async run({ args, flags, pds, command }) {
    const filters = {
      q: stringFlag(flags, 'q'),
      dataModel: stringFlag(flags, 'data-model'),
      extension: stringFlag(flags, 'extension'),
      leaf: trueFalseFlag(flags, 'leaf', command),
      parent: listFlag(flags, 'parent'),
      name: listFlag(flags, 'name'),
      code: listFlag(flags, 'code'),
      limit: integerFlag(flags, 'limit', command),
    };
    const keys = await (await pds()).dataModel.retrieve(args[0] as string, filters);
    return linesResult(keys, '(no keys match)');
  },
};

const current: Command = {
  name: 'datamodel current',
  summary: 'show the current data model (or "not modified" for a held ETag)',
  args: '',
  minArgs: 0,
  maxArgs: 0,
  options: conditionalGetOptions('a model'),
  examples: ['pds datamodel current > model.json', 'pds datamodel current --if-none-match \'"abc"\''],
  async run({ flags, pds }) {
    const answer = await (await pds()).dataModel.current(conditionalGetFlags(flags));
    if (answer.notModified)
      return { data: answer, text: () => `Not modified: ETag ${answer.etag} is current` };
    const { value: model, ...rest } = answer;
    return {
      data: { ...rest, model },
      text: () =>
        [
          formatRecord({
            name: model.name,
            version: model.version,
            etag: answer.etag,
            categories: model.categories.length,
            attributes: model.attributes.length,
            enums: model.enums.length,
            layouts: model.layouts.length,
          }),
          '',
          formatTable(
            ['ATTRIBUTE', 'LABEL', 'TYPE', 'REQUIRED', 'CATEGORY', 'ENUM'],
            model.attributes.map((a) => [
              a.name,
              a.label,
              a.type,
              a.required ? 'yes' : '',
              a.category,
              a.enum,
            ]),
          ),
        ].join('\n'),
    };
  },
};

const defaultItem: Command = {
  name: 'datamodel default-item',
  summary: 'show an item holding the default values of a category',
  args: 'CATEGORY',
  minArgs: 1,
  maxArgs: 1,
  examples: ['pds datamodel default-item FOOD'],
  async run({ args, pds }) {
    const item = await (await pds()).dataModel.defaultItem(args[0] as string);
    return {
      data: item,
      text: () => (Object.keys(item).length === 0 ? '(no defaults)' : formatRecord(item)),
    };
  },
};

const exportFormats: Command = {
  name: 'datamodel export-formats',
  summary: 'list the export formats',
  args: '',
  minArgs: 0,
  maxArgs: 0,
  options: {
    mappings: { type: 'boolean', description: 'include the attribute-to-column mappings' },
    'key-value': { type: 'boolean', description: 'answer an object keyed by format key' },
  },
  examples: ['pds datamodel export-formats', 'pds datamodel export-formats --mappings --json'],
  async run({ flags, pds }) {
    const dataModel = (await pds()).dataModel;
    const includeExportMappings = booleanFlag(flags, 'mappings') || undefined;
    if (booleanFlag(flags, 'key-value')) {
      const keyed = await dataModel.exportFormats({ includeExportMappings, returnKeyValueFormat: true });
      return {
        data: keyed,
        text: () => formatsTable(Object.entries(keyed).map(([key, f]) => ({ key, ...f }) as ExportFormat)),
      };
    }
    const formats = await dataModel.exportFormats({ includeExportMappings });
    return { data: formats, text: () => formatsTable(formats) };
  },
};

function formatsTable(formats: readonly ExportFormat[]): string {
  return formatTable(
    ['KEY', 'LABEL', 'SOURCE', 'EXTENSION', 'CONTENT TYPE', 'MAPPINGS'],
    formats.map((f) => [f.key, f.label, f.source, f.fileExtension, f.contentType, f.mappings?.length]),
  );
}

/** The `pds datamodel …` commands. */
export const dataModelCommands: Command[] = [retrieve, current, defaultItem, exportFormats];
