/**
 * Prints the example events of docs/events.md as fenced JSON blocks under their type headings,
 * for pasting into the document: `node scripts/print-event-examples.ts`.
 */
import { stdout } from 'node:process';
import { parseScriptArgs } from '../lib/command-line.ts';
import { exampleEvents, formatExample } from '../lib/events/examples.ts';

parseScriptArgs({
  command: 'node scripts/print-event-examples.ts',
  summary: 'Prints the example events of docs/events.md as fenced JSON blocks under their type headings.',
  options: {},
});

for (const [type, events] of Object.entries(exampleEvents())) {
  stdout.write(`### ${type}\n\n`);
  for (const event of events) stdout.write(`\`\`\`json\n${formatExample(event)}\n\`\`\`\n\n`);
}
