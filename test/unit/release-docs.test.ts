/**
 * What an adopting team reads first stays true: the licence in LICENSE is the one every package.json
 * names (the root and each workspace package, all of one version and one Node.js range), the changelog keeps its format with an Unreleased section, the oldest Node.js that
 * `engines` supports is the one .ci/run installs for the consumer kit's tests, and the README names
 * that version.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFile(path.join(root, file), 'utf8');

interface Manifest {
  name: string;
  version: string;
  license: string;
  engines?: { node?: string };
}

describe('the adoption basics', () => {
  it('states one OSI licence, Apache-2.0, in LICENSE and both package.json files', async () => {
    const licence = await read('LICENSE');
    const manifests = [
      JSON.parse(await read('package.json')) as Manifest,
      JSON.parse(await read('packages/consumer/package.json')) as Manifest,
    ];

    expect(licence).toContain('Apache License');
    expect(licence).toContain('Version 2.0, January 2004');
    expect(manifests.map((manifest) => manifest.license)).toEqual(['Apache-2.0', 'Apache-2.0']);
    expect(manifests.map((manifest) => manifest.name)).toEqual(['pds-bridge', 'pds-bridge']);
  });

  it('gives every workspace package the licence, version and Node.js range of the root', async () => {
    const rootManifest = JSON.parse(await read('package.json')) as Manifest & { workspaces: string[] };
    const packages = await Promise.all(
      rootManifest.workspaces.map(async (dir) => JSON.parse(await read(`${dir}/package.json`)) as Manifest),
    );

    expect(packages.length).toBeGreaterThanOrEqual(5);
    for (const manifest of packages) {
      expect(manifest.license, manifest.name).toBe(rootManifest.license);
      expect(manifest.version, manifest.name).toBe(rootManifest.version);
      expect(manifest.engines?.node, manifest.name).toBe(rootManifest.engines?.node);
    }
  });

  it('keeps a changelog in the Keep a Changelog format with an Unreleased section', async () => {
    const changelog = await read('CHANGELOG.md');

    expect(changelog).toMatch(/^# Changelog\n/);
    expect(changelog).toContain('## [Unreleased]');
    const headings = [...changelog.matchAll(/^### (.+)$/gm)].map((match) => match[1]);
    expect(headings.length).toBeGreaterThan(0);
    for (const heading of headings) {
      expect(['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security']).toContain(heading);
    }
  });

  it('supports the same oldest Node.js in engines, .ci/run, the consumer build and the README', async () => {
    const minimum = (manifest: Manifest) => Number(/^>=\s*(\d+)$/.exec(manifest.engines?.node ?? '')?.[1]);
    const root = minimum(JSON.parse(await read('package.json')) as Manifest);
    const kit = minimum(JSON.parse(await read('packages/consumer/package.json')) as Manifest);
    const ci = Number(/^OLDEST_NODE_MAJOR=(\d+)/m.exec(await read('.ci/run'))?.[1]);
    const target = Number(/target: 'node(\d+)'/.exec(await read('scripts/build-consumer.ts'))?.[1]);

    expect(root).toBeGreaterThanOrEqual(22);
    expect([kit, ci, target]).toEqual([root, root, root]);
    expect(await read('README.md')).toContain(`You need Node.js ${root} or newer`);
  });
});
