import { describe, expect, it } from 'vitest';
import { dropRuleLine, dropWarnings, ingestFiltersOf } from '../../packages/local/src/ingest-hints.ts';

describe('dropWarnings', () => {
  it('warns that a key outside INGEST_PREFIX will not be ingested, and how to put it inside', () => {
    const warnings = dropWarnings('items.csv', { filters: { prefix: 'incoming/' }, simulated: true });

    expect(warnings).toEqual([
      'items.csv is outside INGEST_PREFIX "incoming/": the stack will not ingest it (put it under incoming/: --prefix incoming/)',
    ]);
  });

  it('warns that a key without one of INGEST_SUFFIXES will not be ingested', () => {
    const warnings = dropWarnings('incoming/notes.txt', {
      filters: { prefix: 'incoming/', suffixes: ['.csv', '.zip'] },
      simulated: false,
    });

    expect(warnings).toEqual([
      'incoming/notes.txt is not ending in one of INGEST_SUFFIXES .csv, .zip: the stack will not ingest it',
    ]);
  });

  it('tells, with the simulator, that a file it creates no items from is accepted and creates none', () => {
    for (const key of ['report.pdf', 'notes.txt', 'empty']) {
      const [warning] = dropWarnings(key, { filters: {}, simulated: true });

      expect(warning).toMatch(/the simulator creates items only from \.csv and \.json files/);
      expect(warning).toContain('creates none');
    }
  });

  it('tells, with the simulator, that a CSV without a primaryKey__ column creates no items', () => {
    const hints = { filters: {}, simulated: true };

    expect(dropWarnings('items.csv', { ...hints, firstLine: 'gtin,name' })).toEqual([
      'items.csv has no primaryKey__ column in its header: the simulator skips every row and creates no items (pds.ingest.completed still says the import was accepted)',
    ]);
    expect(dropWarnings('items.csv', { ...hints, firstLine: '\uFEFFprimaryKey__;name' })).toEqual([]);
    expect(dropWarnings('items.csv', { ...hints, firstLine: 'name,"primaryKey__"' })).toEqual([]);
    expect(dropWarnings('items.csv', { filters: {}, simulated: false, firstLine: 'gtin' })).toEqual([]);
  });

  it('says nothing of files the simulator imports, or of any file with a real PDS', () => {
    for (const key of ['items.csv', 'items.JSON', 'batch.zip']) {
      expect(dropWarnings(key, { filters: {}, simulated: true })).toEqual([]);
    }
    expect(dropWarnings('report.pdf', { filters: {}, simulated: false })).toEqual([]);
  });
});

describe('ingestFiltersOf and dropRuleLine', () => {
  it('reads the filters the ingest function reads and says them on one line', () => {
    const filters = ingestFiltersOf({ INGEST_PREFIX: 'in/', INGEST_SUFFIXES: '.csv, .zip' });

    expect(filters).toEqual({ prefix: 'in/', suffixes: ['.csv', '.zip'] });
    expect(dropRuleLine(filters, false)).toBe(
      'Drop files to ingest them: keys under in/ ending in .csv, .zip only (INGEST_PREFIX, INGEST_SUFFIXES).',
    );
  });
});
