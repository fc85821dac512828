/**
 * Property tier (issue 21): the events the bridge builds and their serialisation, against the
 * consumer kit that reads them; and the kit's reader against any SQS message. Budgets and replay:
 * test/helpers/property.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EXTENDED_PAYLOAD_SIZE_ATTRIBUTE } from '../../packages/bridge/src/events/claim-check.ts';
import { exampleEvents } from '../../packages/bridge/src/events/examples.ts';
import {
  type CloudEvent,
  createEvent,
  EVENT_TYPES,
  EventDataError,
  serializeEvent,
} from '../../packages/bridge/src/events/index.ts';
import { CONSUMER_ERROR_CODES, ConsumerError } from '../../packages/consumer/src/index.ts';
import { createEventReader } from '../../packages/consumer/src/reader.ts';
import { holds, hostileString, withinTimeBudget, withinTimeBudgetAsync } from '../helpers/property.ts';

const examples = Object.values(exampleEvents()).flat() as CloudEvent[];
const text = hostileString({ maxLength: 30 });
/** Every character SQS accepts in a message body, supplementary planes written as escapes. */
const SENDABLE = /^[\t\n\r\u0020-\uD7FF\uE000-\uFFFD]*$/;

/** A value like `value` with its strings replaced by anything, sometimes. */
function perturbed(value: unknown): fc.Arbitrary<unknown> {
  if (typeof value === 'string') return fc.oneof({ weight: 3, arbitrary: fc.constant(value) }, text);
  if (Array.isArray(value)) return fc.tuple(...value.map(perturbed));
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).map(([key, each]) =>
      perturbed(each).map((changed) => [key, changed] as const),
    );
    return fc.tuple(...entries).map((pairs) => Object.fromEntries(pairs));
  }
  return fc.constant(value);
}
const date = fc.oneof(
  fc.date({ noInvalidDate: false }),
  fc.constantFrom(
    new Date(Date.UTC(9999, 11, 31, 23, 59, 59, 999)),
    new Date(Date.UTC(10000, 0, 1)),
    new Date(Date.UTC(-1, 0, 1)),
  ),
);
const eventInput = fc.constantFrom(...examples).chain((example) =>
  fc.record({
    type: fc.oneof(
      { weight: 6, arbitrary: fc.constant<unknown>(example.type) },
      fc.constantFrom<unknown>(...EVENT_TYPES, 42, null, Object.create(null)),
      text,
    ),
    subject: fc.oneof(
      { weight: 3, arbitrary: fc.constant<unknown>(example.subject) },
      text,
      fc.constant<unknown>(7),
    ),
    source: fc.option(fc.oneof(text, fc.constant<unknown>(42)), { nil: undefined }),
    time: fc.option(fc.oneof<fc.Arbitrary<unknown>[]>(date, text, fc.constant(example.time)), {
      nil: undefined,
    }),
    idParts: fc.oneof(
      fc.array(fc.oneof<fc.Arbitrary<unknown>[]>(text, fc.integer(), fc.double()), {
        minLength: 1,
        maxLength: 3,
      }),
      fc.constant<unknown>([]),
    ),
    data: perturbed(example.data),
  }),
);

const reader = createEventReader();

describe('events and the consumer kit, property-tested', () => {
  it('createEvent refuses with EventDataError or builds an event the consumer kit reads back as built', async () => {
    await holds(
      fc.property(eventInput, (input) => {
        let event: CloudEvent;
        try {
          event = createEvent(input as never);
        } catch (error) {
          expect(error).toBeInstanceOf(EventDataError);
          return;
        }
        const read = reader.parse(serializeEvent(event));
        expect(read.id).toBe(event.id);
        expect(read.time).toBe(event.time);
        expect(read.data).toEqual(event.data);
      }),
      { runs: 1500 },
    );
  });

  it('serialisation round-trips every string and writes only characters SQS accepts', async () => {
    await holds(
      fc.property(
        fc.constantFrom(...examples),
        fc.string({ unit: 'binary', maxLength: 40 }),
        (example, value) => {
          const event = {
            ...example,
            subject: value,
            data: { ...example.data, reason: value },
          } as CloudEvent;
          const body = withinTimeBudget(() => serializeEvent(event));
          expect(body).toMatch(SENDABLE);
          expect(JSON.parse(body)).toEqual(event);
        },
      ),
      { runs: 1000 },
    );
  });

  it('the reader refuses any message only with ConsumerError and a documented code, claim-checks included', async () => {
    const bodies = fc.oneof(
      fc.constantFrom(...examples).map((event) => serializeEvent(event)),
      fc
        .constantFrom(...examples)
        .chain((event) => perturbed(event).map((changed) => JSON.stringify(changed))),
      fc.json(),
      text,
      fc
        .record({ s3BucketName: text, s3Key: text })
        .map((pointer) => JSON.stringify(['software.amazon.payloadoffloading.PayloadS3Pointer', pointer])),
    );
    const message = fc.record({
      body: bodies,
      flagged: fc.option(text, { nil: undefined }),
      stored: fc.oneof(bodies, fc.constant('')),
    });
    await holds(
      fc.asyncProperty(message, async ({ body, flagged, stored }) => {
        const withPayloads = createEventReader({
          payloads: async () => stored,
          claimCheck: { buckets: ['state'] },
        });
        try {
          await withinTimeBudgetAsync(() =>
            withPayloads.read({
              body,
              messageId: 'm-1',
              ...(flagged === undefined
                ? {}
                : {
                    messageAttributes: {
                      [EXTENDED_PAYLOAD_SIZE_ATTRIBUTE]: { stringValue: flagged, dataType: 'Number' },
                    },
                  }),
            }),
          );
        } catch (error) {
          expect(error).toBeInstanceOf(ConsumerError);
          expect(CONSUMER_ERROR_CODES).toContain((error as ConsumerError).code);
        }
      }),
      { runs: 800 },
    );
  });
});
