/**
 * The EventBridge publisher against the SQS publisher (the reference), both on a backlog of 1,000
 * events at three event sizes: entries per request and publisher CPU time per 1,000 events. Both
 * clients answer in-process (every entry accepted, no network), so the figures are the publishers'
 * own work (serialising, sizing, packing, answer handling), not AWS latency.
 *
 * ./node_modules/.bin/node bench/eventbridge.ts [--events 1000] [--runs 5]
 */

import { parseArgs } from 'node:util';
import type { EventBridgeClient, PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import type { SendMessageBatchRequestEntry, SQSClient } from '@aws-sdk/client-sqs';
import { EventBridgeEventPublisher } from '../packages/bridge/src/events/eventbridge/index.ts';
import { type CloudEvent, createEvent } from '../packages/bridge/src/events/index.ts';
import { SqsEventPublisher } from '../packages/bridge/src/events/sqs/index.ts';
import { median, printTable } from './support.ts';

const { values } = parseArgs({
  options: { events: { type: 'string', default: '1000' }, runs: { type: 'string', default: '5' } },
});
const EVENTS = Number(values.events);
const RUNS = Number(values.runs);
const SIZES = [1024, 8 * 1024, 32 * 1024];

function backlog(bytes: number): CloudEvent[] {
  return Array.from({ length: EVENTS }, (_, id) =>
    createEvent({
      type: 'pds.messaging-asset.received',
      subject: `messaging-asset/${id}`,
      idParts: [id],
      time: '2026-11-20T09:15:00Z',
      data: {
        messagingAssetId: id,
        parseError: { name: 'XmlParseError', message: 'x' },
        rawXml: 'x'.repeat(bytes),
      },
    }),
  );
}

/** In-process clients that accept every entry and count requests. */
function fakeEventBridge(counter: { calls: number; entries: number }): EventBridgeClient {
  return {
    send: async (command: { input: { Entries?: PutEventsRequestEntry[] } }) => {
      const entries = command.input.Entries;
      if (!entries) return {};
      counter.calls++;
      counter.entries += entries.length;
      return { FailedEntryCount: 0, Entries: entries.map((_, i) => ({ EventId: String(i) })) };
    },
  } as unknown as EventBridgeClient;
}

function fakeSqs(counter: { calls: number; entries: number }): SQSClient {
  return {
    send: async (command: { input: { Entries: SendMessageBatchRequestEntry[] } }) => {
      counter.calls++;
      counter.entries += command.input.Entries.length;
      return {
        Successful: command.input.Entries.map((e) => ({ Id: e.Id, MessageId: 'm', MD5OfMessageBody: 'x' })),
        Failed: [],
      };
    },
  } as unknown as SQSClient;
}

async function measure(
  publish: (events: CloudEvent[]) => Promise<void>,
  events: CloudEvent[],
): Promise<number> {
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const start = process.cpuUsage();
    await publish(events);
    const used = process.cpuUsage(start);
    times.push((used.user + used.system) / 1000);
  }
  return median(times);
}

const rows: Array<Array<string | number>> = [];
for (const size of SIZES) {
  const events = backlog(size);
  const eb = { calls: 0, entries: 0 };
  const sq = { calls: 0, entries: 0 };
  const bus = new EventBridgeEventPublisher({ eventBridge: fakeEventBridge(eb), busName: 'bench' });
  const queue = new SqsEventPublisher({
    sqs: fakeSqs(sq),
    queueUrl: () => 'https://sqs.eu-central-1.amazonaws.com/1/bench',
  });
  const busMs = await measure((batch) => bus.publish(batch), events);
  const queueMs = await measure((batch) => queue.publish(batch), events);
  const per1000 = 1000 / EVENTS;
  rows.push([
    `${size / 1024} KiB`,
    (eb.entries / eb.calls).toFixed(2),
    (sq.entries / sq.calls).toFixed(2),
    Math.round((eb.calls / RUNS) * per1000),
    (busMs * per1000).toFixed(1),
    (queueMs * per1000).toFixed(1),
    (busMs / queueMs).toFixed(2),
  ]);
}
printTable(
  [
    'event data',
    'entries/PutEvents',
    'entries/SendMessageBatch',
    'PutEvents per 1,000',
    'EventBridge CPU ms/1,000',
    'SQS CPU ms/1,000 (ref)',
    'ratio',
  ],
  rows,
);
