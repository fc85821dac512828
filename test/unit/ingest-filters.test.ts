import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../packages/bridge/src/config/index.ts';
import {
  createIngestFilter,
  describeIngestFilters,
  parseSuffixList,
} from '../../packages/bridge/src/ingest/filters.ts';
import { INGEST_SETTINGS, ingestOptionsFrom } from '../../packages/bridge/src/ingest/settings.ts';
import { uploadContentType, uploadFileName } from '../../packages/bridge/src/ingest/upload-name.ts';

describe('createIngestFilter', () => {
  it('skips folder placeholders whatever the filters', () => {
    const accepts = createIngestFilter();

    expect(accepts('incoming/')).toEqual({ accept: false, reason: 'a folder placeholder (key ends in "/")' });
    expect(accepts('incoming/items.csv')).toEqual({ accept: true });
  });

  it('accepts only keys under the prefix that end in one of the suffixes, ignoring case of the suffix', () => {
    const accepts = createIngestFilter({ prefix: 'incoming/', suffixes: ['.csv', '.ZIP'] });

    expect(accepts('incoming/deep/er/Items.CSV').accept).toBe(true);
    expect(accepts('incoming/archive.zip').accept).toBe(true);
    expect(accepts('other/items.csv')).toEqual({
      accept: false,
      reason: 'outside INGEST_PREFIX "incoming/"',
    });
    expect(accepts('incoming/notes.txt')).toEqual({
      accept: false,
      reason: 'not ending in one of INGEST_SUFFIXES .csv, .zip',
    });
  });
});

describe('describeIngestFilters', () => {
  it('says every key without filters, and names the rule and its variables with them', () => {
    expect(describeIngestFilters()).toBe('every key (no INGEST_PREFIX or INGEST_SUFFIXES set)');
    expect(describeIngestFilters({ prefix: 'incoming/' })).toBe('keys under incoming/ only (INGEST_PREFIX)');
    expect(describeIngestFilters({ prefix: 'in/', suffixes: ['.csv', '.zip'] })).toBe(
      'keys under in/ ending in .csv, .zip only (INGEST_PREFIX, INGEST_SUFFIXES)',
    );
  });
});

describe('parseSuffixList', () => {
  it('splits, trims and drops empty items', () => {
    expect(parseSuffixList(' .csv, .json ,,.zip')).toEqual(['.csv', '.json', '.zip']);
    expect(parseSuffixList(undefined)).toEqual([]);
  });
});

describe('ingest configuration', () => {
  const base = {
    PDS_BASE_URL: 'http://127.0.0.1:1',
    PDS_USERNAME: 'demo',
    PDS_PASSWORD: 'demo',
    INGEST_BUCKETS: 'drops',
  };

  it('defaults to tagging objects, a 16-minute lease and no filter beyond folder placeholders', () => {
    const config = loadConfig(base, { settings: INGEST_SETTINGS, require: ['INGEST_BUCKETS'] });

    const options = ingestOptionsFrom(config.settings);

    expect(options.tagObjects).toBe(true);
    expect(options.leaseMs).toBe(960_000);
    expect(options.accepts('anything.bin').accept).toBe(true);
  });

  it('reads the prefix, the suffix list, tagging off and the lease', () => {
    const config = loadConfig(
      {
        ...base,
        INGEST_PREFIX: 'in/',
        INGEST_SUFFIXES: '.csv,.json',
        INGEST_TAG_OBJECTS: 'false',
        INGEST_LEASE_SECONDS: '120',
      },
      { settings: INGEST_SETTINGS, require: ['INGEST_BUCKETS'] },
    );

    const options = ingestOptionsFrom(config.settings);

    expect(options.tagObjects).toBe(false);
    expect(options.leaseMs).toBe(120_000);
    expect(options.accepts('in/a.json').accept).toBe(true);
    expect(options.accepts('in/a.zip').accept).toBe(false);
  });

  it('names every bad ingest variable at once', () => {
    const load = () =>
      loadConfig(
        { ...base, INGEST_TAG_OBJECTS: 'maybe', INGEST_LEASE_SECONDS: '5', INGEST_SUFFIXES: ',,' },
        { settings: INGEST_SETTINGS, require: ['INGEST_BUCKETS'] },
      );

    expect(load).toThrow(ConfigError);
    expect(load).toThrow(
      /INGEST_TAG_OBJECTS must be true or false.*INGEST_LEASE_SECONDS must be an integer from 30 to 43200/,
    );
    expect(load).toThrow(/INGEST_SUFFIXES must be a comma-separated list/);
  });
});

describe('upload name and content type', () => {
  it("uploads under the key's last segment", () => {
    expect(uploadFileName('in/2026/Q1 items.csv')).toBe('Q1 items.csv');
    expect(uploadFileName('items.csv')).toBe('items.csv');
  });

  it('keeps a specific stored content type and guesses from the extension for generic ones', () => {
    expect(uploadContentType('in/items.csv', 'text/csv; charset=utf-8')).toBe('text/csv; charset=utf-8');
    expect(uploadContentType('in/items.csv', 'binary/octet-stream')).toBe('text/csv');
    expect(uploadContentType('in/archive.ZIP', undefined)).toBe('application/zip');
    expect(uploadContentType('in/blob', '')).toBe('application/octet-stream');
  });
});
