/**
 * Every error class names itself with a literal (`this.name = 'ThatClass'`). BridgeError's fallback,
 * `new.target.name`, is the class's name only in unbundled code: the Lambda bundles are minified
 * (scripts/bundle-options.ts), so there a class without the literal logs a mangled name such as `vo`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageSourceFiles } from '../helpers/module-imports.ts';

const root = path.resolve(import.meta.dirname, '../..');
const CLASS = /^(?:export )?class (\w+) extends (\w+)/gm;

/** Each class of `source` with its parent and its text up to the next class. */
function classesOf(source: string): Array<{ name: string; parent: string; body: string }> {
  const matches = [...source.matchAll(CLASS)];
  return matches.map((match, index) => ({
    name: match[1] as string,
    parent: match[2] as string,
    body: source.slice(match.index, matches[index + 1]?.index ?? source.length),
  }));
}

/** The classes whose parent chain reaches an Error, but BridgeError itself. */
function errorClassesWithoutLiteralName(files: readonly string[], read: (file: string) => string): string[] {
  const classes = files.flatMap((file) => classesOf(read(file)).map((found) => ({ file, ...found })));
  const parents = new Map(classes.map(({ name, parent }) => [name, parent]));
  const isError = (name: string, depth = 0): boolean => {
    if (/^(?:Error|RangeError|TypeError|AggregateError)$/.test(name)) return true;
    const parent = parents.get(name);
    return parent !== undefined && depth < 10 && isError(parent, depth + 1);
  };
  return classes
    .filter(({ name }) => name !== 'BridgeError' && isError(name))
    .filter(({ name, body }) => !body.includes(`this.name = '${name}';`))
    .map(({ file, name }) => `${file}: ${name}`);
}

describe('error class names', () => {
  it('finds an error class that leaves its name to new.target.name (self-test on synthetic sources)', () => {
    // prepare
    const sources: Record<string, string> = {
      'a/errors.ts': [
        'export class BridgeError extends Error {}',
        "export class Named extends BridgeError {\n  constructor() {\n    super('X', 'x');\n    this.name = 'Named';\n  }\n}",
        'export class Unnamed extends Named {\n  constructor() {\n    super();\n  }\n}',
        'class Plain extends Base {}',
      ].join('\n'),
    };

    // act
    const found = errorClassesWithoutLiteralName(Object.keys(sources), (file) => sources[file] as string);

    // assess
    expect(found).toEqual(['a/errors.ts: Unnamed']);
  });

  it('gives every error class in the packages its name as a literal, which minifying keeps', () => {
    // act
    const unnamed = errorClassesWithoutLiteralName(packageSourceFiles(), (file) =>
      readFileSync(path.join(root, file), 'utf8'),
    );

    // assess: add `this.name = '<the class>';` after its super call
    expect(unnamed).toEqual([]);
  });
});
