/**
 * `pds tags …`: the `/v1/items/{primaryKey}/tags` operations.
 */

import { UsageError } from '@pds-bridge/bridge/core';
import { booleanFlag, integerFlag, stringFlag } from '../args.ts';
import type { Command } from '../command.ts';
import { linesResult } from './shared.ts';

const list: Command = {
  name: 'tags list',
  summary: 'list the recently stored tags of an item',
  args: 'PRIMARY_KEY',
  minArgs: 1,
  maxArgs: 1,
  options: {
    'newest-first': { type: 'boolean', description: 'newest first (default oldest first)' },
    'base-tag': { type: 'string', value: 'PREFIX', description: 'only tags starting with PREFIX' },
    'page-size': { type: 'string', value: 'N', description: 'tags per request (default 100)' },
    max: { type: 'string', value: 'N', description: 'stop after N tags (default: all)' },
  },
  examples: ['pds tags list 4006381333931', 'pds tags list 4006381333931 --base-tag promo: --newest-first'],
  async run({ args, flags, pds, command }) {
    const options = {
      newestFirst: booleanFlag(flags, 'newest-first') || undefined,
      baseTag: stringFlag(flags, 'base-tag'),
      pageSize: integerFlag(flags, 'page-size', command, { min: 1 }),
    };
    const max = integerFlag(flags, 'max', command, { min: 1 });
    const tags = await (await pds()).itemTags.list(args[0] as string, options).toArray(max);
    return linesResult(tags, '(no tags)');
  },
};

const add: Command = {
  name: 'tags add',
  summary: 'add tags to an item',
  args: 'PRIMARY_KEY TAG...',
  minArgs: 2,
  maxArgs: Number.POSITIVE_INFINITY,
  examples: ['pds tags add 4006381333931 organic promo:2026'],
  async run({ args, pds }) {
    const [primaryKey, ...tags] = args as [string, ...string[]];
    await (await pds()).itemTags.add(primaryKey, tags);
    return { data: { primaryKey, added: tags }, text: () => `Added ${tags.join(', ')} to ${primaryKey}` };
  },
};

const remove: Command = {
  name: 'tags remove',
  summary: 'remove tags from an item (or every tag with --all)',
  args: 'PRIMARY_KEY [TAG...]',
  minArgs: 1,
  maxArgs: Number.POSITIVE_INFINITY,
  options: { all: { type: 'boolean', description: 'remove every tag of the item' } },
  examples: ['pds tags remove 4006381333931 promo:2026', 'pds tags remove 4006381333931 --all'],
  async run({ args, flags, pds, command }) {
    const [primaryKey, ...tags] = args as [string, ...string[]];
    const all = booleanFlag(flags, 'all');
    if (all === tags.length > 0) {
      throw new UsageError(
        'name the tags to remove, or pass --all (and no tags) to remove every tag',
        command,
      );
    }
    const itemTags = (await pds()).itemTags;
    if (all) await itemTags.removeAll(primaryKey);
    else await itemTags.remove(primaryKey, tags);
    const data = { primaryKey, removed: all ? 'all' : tags };
    return { data, text: () => `Removed ${all ? 'every tag' : tags.join(', ')} from ${primaryKey}` };
  },
};

/** The `pds tags …` commands. */
export const tagCommands: Command[] = [list, add, remove];
