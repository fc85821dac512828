/**
 * The command table of `pds`: every subcommand, found by its words.
 */
import type { Command } from '../command.ts';
import { bridgeCommands } from './bridge.ts';
import { bridgeCheckCommands } from './bridge-check.ts';
import { consoleCommands } from './console.ts';
import { dataModelCommands } from './datamodel.ts';
import { folderCommands } from './folders.ts';
import { subscriptionCommands } from './subscriptions.ts';
import { tagCommands } from './tags.ts';
import { watchCommands } from './watch.ts';
import { webhookCommands } from './webhooks.ts';
import { workflowCommands } from './workflow.ts';

/** Every `pds` subcommand, in the order help lists them. */
export const COMMANDS: readonly Command[] = [
  ...workflowCommands,
  ...folderCommands,
  ...subscriptionCommands,
  ...dataModelCommands,
  ...tagCommands,
  ...watchCommands,
  ...bridgeCommands,
  ...bridgeCheckCommands,
  ...webhookCommands,
  ...consoleCommands,
];

/** What each group of subcommands is about, for the top-level help. */
export const GROUPS: Readonly<Record<string, string>> = {
  messages: 'messaging assets (XML messages such as GDSN confirmations)',
  folders: 'asset folders: documents, media files and folders',
  subscriptions: 'bulk subscriptions and their entries',
  datamodel: 'the data model',
  tags: 'custom tags of items',
  watch: 'the supplier-review watch list of the bridge (in its state bucket)',
  bridge:
    'the bridge itself: why a file, publication or message went as it did, status, the check after a deploy, redrive, replay, webhooks and their deliveries, the console in a browser',
  'bridge webhooks':
    'webhook endpoints of the bridge: create, list, change, rotate, delete, replay (docs/webhooks.md)',
};
