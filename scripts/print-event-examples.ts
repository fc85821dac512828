/**
 * Prints the example events of docs/events.md as fenced JSON blocks under their type headings,
 * for pasting into the document: `node scripts/print-event-examples.ts`.
 */
import { stdout } from 'node:process';
import { exampleEvents, formatExample } from '../packages/bridge/src/events/examples.ts';
import { parseScriptArgs } from '../packages/cli/src/command-line.ts';

parseScriptArgs({
  command: 'node scripts/print-event-examples.ts',
  summary: 'Prints the example events of docs/events.md as fenced JSON blocks under their type headings.',
  options: {},
});

for (const [type, events] of Object.entries(exampleEvents())) {
  stdout.write(`### ${type}\n\n`);
  for (const event of events) stdout.write(`\`\`\`json\n${formatExample(event)}\n\`\`\`\n\n`);
}
