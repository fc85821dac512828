/**
 * `npm run schemas`: writes the event contracts (packages/bridge/src/events/contracts.ts) — each event type's data
 * schema under schemas/events/<type>/v<version>.json and schemas/asyncapi.json. A data schema whose
 * committed file it would change in a breaking way is not written: the change needs a new version
 * (EVENT_DATA_VERSIONS in packages/bridge/src/events/dataschema.ts; docs/events.md, "Schemas and versions").
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stderr, stdout } from 'node:process';
import { breakingChanges } from '../packages/bridge/src/events/compatibility.ts';
import { contractFiles, contractText } from '../packages/bridge/src/events/contracts.ts';
import { parseScriptArgs } from '../packages/cli/src/command-line.ts';

parseScriptArgs({
  command: 'node scripts/schemas.ts',
  summary:
    "npm run schemas: writes each event type's data schema (schemas/events/<type>/v<N>.json) and schemas/asyncapi.json; refuses a breaking change to a released version.",
  options: {},
});

const root = path.resolve(import.meta.dirname, '..');
const { version } = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as {
  version: string;
};

async function committed(file: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path.join(root, file), 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

let refused = 0;
for (const file of contractFiles(version)) {
  const previous = file.dataSchema ? await committed(file.path) : undefined;
  const breaks = previous === undefined ? [] : breakingChanges(previous, file.json);
  if (breaks.length > 0 && file.dataSchema) {
    refused++;
    const { type, version: current } = file.dataSchema;
    stderr.write(
      `${file.path} not written: breaking changes to ${type} v${current}:\n${breaks.map((line) => `  - ${line}`).join('\n')}\n` +
        `  Make the change additive, or raise ${type} to v${current + 1} in packages/bridge/src/events/dataschema.ts (docs/events.md, "Schemas and versions").\n`,
    );
    continue;
  }
  await mkdir(path.dirname(path.join(root, file.path)), { recursive: true });
  await writeFile(path.join(root, file.path), contractText(file));
  stdout.write(`wrote ${file.path}\n`);
}
process.exitCode = refused > 0 ? 1 : 0;
