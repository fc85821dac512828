/**
 * The README's configuration table is checked against the settings the functions declare
 * (packages/bridge/src/config/base.ts and each `packages/bridge/src/<flow>/settings.ts`), as docs/events.md is against the events.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { API_SETTINGS } from '../../packages/bridge/src/api/index.ts';
import { BASE_SETTINGS, type SettingSpecs } from '../../packages/bridge/src/config/index.ts';
import { INGEST_SETTINGS } from '../../packages/bridge/src/ingest/settings.ts';
import {
  MESSAGING_ASSET_POLL_SETTINGS,
  REVIEW_POLL_SETTINGS,
} from '../../packages/bridge/src/polling/settings.ts';
import { WORKER_SETTINGS } from '../../packages/bridge/src/publications/settings.ts';
import { WEBHOOK_SETTINGS } from '../../packages/bridge/src/webhooks/settings.ts';

const readmePath = path.resolve(import.meta.dirname, '../../README.md');

const DECLARED: SettingSpecs = {
  ...BASE_SETTINGS,
  ...INGEST_SETTINGS,
  ...MESSAGING_ASSET_POLL_SETTINGS,
  ...REVIEW_POLL_SETTINGS,
  ...API_SETTINGS,
  ...WORKER_SETTINGS,
  ...WEBHOOK_SETTINGS,
};

interface Row {
  readonly names: readonly string[];
  readonly defaultText: string;
}

/** The rows of the table under `## Configuration`: the variables of each row and its default cell. */
function configurationRows(markdown: string): Row[] {
  const section = markdown.split(/^## Configuration$/m)[1]?.split(/^## /m)[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [variables = '', defaultText = ''] = line.split('|').slice(1);
      return {
        names: [...variables.matchAll(/`([A-Z0-9_]+)`/g)].map((match) => match[1] ?? ''),
        defaultText: defaultText.trim(),
      };
    });
}

describe('README.md configuration table', () => {
  const rows = configurationRows(readFileSync(readmePath, 'utf8'));

  it('names every variable the functions declare, and no other', () => {
    // act
    const documented = rows.flatMap((row) => row.names);

    // assess
    expect([...documented].sort()).toEqual(Object.keys(DECLARED).sort());
  });

  it('shows the default each single-variable row declares', () => {
    for (const row of rows.filter((r) => r.names.length === 1 && /^`[^`]*`$/.test(r.defaultText))) {
      // prepare
      const name = row.names[0] ?? '';

      // act
      const unset = DECLARED[name]?.read(undefined);

      // assess
      expect(unset, name).toEqual({ ok: true, value: expect.anything() });
      expect(`\`${String(unset?.ok ? unset.value : '')}\``, name).toBe(row.defaultText);
    }
  });
});
