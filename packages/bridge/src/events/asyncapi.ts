/**
 * The AsyncAPI 3.0 document of the bridge's events (schemas/asyncapi.json), built from the event
 * catalogue, the data schemas' versions and the documented examples, so it cannot list a type the
 * code does not emit or show an example the code does not produce. `npm run schemas` writes it;
 * test/unit/events-asyncapi.test.ts parses it with the official parser and checks its queues against
 * the packaged template and its messages against what the SQS publisher sends.
 *
 * Build-time only, like ./examples.ts: not exported from ./index.ts.
 */
import { globalRegistry } from '../core/zod.ts';
import { EXTENDED_PAYLOAD_SIZE_ATTRIBUTE, PAYLOAD_POINTER_CLASS } from './claim-check.ts';
import { dataSchemaPath, dataSchemaUri } from './dataschema.ts';
import { DEFAULT_EVENT_SOURCE, ENVELOPE_ATTRIBUTES } from './envelope.ts';
import { exampleEvents } from './examples.ts';
import type { JsonSchema } from './json-schema.ts';
import { EVENT_DATA_SCHEMAS, EVENT_TYPES, type EventType } from './types.ts';

/** One SQS queue the deployment (deploy/*.yml) sends events to, as an AsyncAPI channel. */
export interface EventQueue {
  /** The channel's key in the document. */
  channel: string;
  title: string;
  /** The queue's name as deployed, `{stage}` standing for the osls stage. */
  queueName: string;
  deadLetterQueueName: string;
  /** Receives of a message before SQS moves it to the dead-letter queue. */
  maxReceiveCount: number;
  /** Seconds SQS keeps a message, in the queue and in its dead-letter queue. */
  messageRetentionPeriod: number;
  /** The variable that points the bridge's functions at the queue. */
  variable: string;
  types: readonly EventType[];
}

const FOURTEEN_DAYS = 1_209_600;

/**
 * The event queues of the deployed template. Routing (packages/bridge/src/config/event-routing.ts) lets every family have
 * its own queue; the template gives the pollers' families theirs and sends the rest to the shared one.
 */
export const EVENT_QUEUES: readonly EventQueue[] = [
  {
    channel: 'events',
    title: 'Shared events queue',
    queueName: 'pds-bridge-{stage}-events',
    deadLetterQueueName: 'pds-bridge-{stage}-events-dlq',
    maxReceiveCount: 5,
    messageRetentionPeriod: FOURTEEN_DAYS,
    variable: 'EVENTS_QUEUE_URL',
    types: [
      'pds.ingest.completed',
      'pds.ingest.failed',
      'pds.publication.completed',
      'pds.publication.failed',
      'pds.confirmation.changed',
      'pds.webhook.endpoint-disabled',
    ],
  },
  {
    channel: 'messagingAssetEvents',
    title: 'Messaging-asset events queue',
    queueName: 'pds-bridge-{stage}-messaging-asset-events',
    deadLetterQueueName: 'pds-bridge-{stage}-messaging-asset-events-dlq',
    maxReceiveCount: 5,
    messageRetentionPeriod: FOURTEEN_DAYS,
    variable: 'MESSAGING_ASSET_EVENTS_QUEUE_URL',
    types: ['pds.messaging-asset.received'],
  },
  {
    channel: 'supplierReviewEvents',
    title: 'Supplier-review events queue',
    queueName: 'pds-bridge-{stage}-supplier-review-events',
    deadLetterQueueName: 'pds-bridge-{stage}-supplier-review-events-dlq',
    maxReceiveCount: 5,
    messageRetentionPeriod: FOURTEEN_DAYS,
    variable: 'SUPPLIER_REVIEW_EVENTS_QUEUE_URL',
    types: ['pds.supplier-review.received'],
  },
];

/** The EventBridge bus (deploy/eventbridge.yml) as an AsyncAPI channel: any family may be routed to it. */
export const EVENT_BUS = Object.freeze({
  channel: 'eventBus',
  title: 'EventBridge bus',
  /** The bus the template creates with `--param eventBus=create`; an existing bus keeps its own name. */
  busName: 'pds-bridge-{stage}-events',
  variable: 'EVENT_BUS_NAME',
  /** The message of `type` on the bus (its key in components.messages). */
  messageId: (type: EventType): string => `eventbridge.${type}`,
});

/** A fixed EventBridge event id for the examples (EventBridge assigns its own to every event). */
const EXAMPLE_EVENTBRIDGE_ID = '6a7e8feb-b491-4cf7-a9f1-bf3703467718';

/** Where the data schemas are, relative to the AsyncAPI document (both under schemas/). */
const dataSchemaRef = (type: EventType): string => `./${dataSchemaPath(type).replace(/^schemas\//, '')}`;

/** The description the data schema of `type` is registered with (types.ts). */
const description = (type: EventType): string =>
  globalRegistry.get(EVENT_DATA_SCHEMAS[type])?.description ?? '';

function envelopeSchema(type: EventType): JsonSchema {
  return {
    type: 'object',
    title: `${type} event`,
    description: `A CloudEvents 1.0 event (JSON format). ${description(type)}`.trim(),
    required: [...ENVELOPE_ATTRIBUTES],
    properties: {
      specversion: { const: '1.0' },
      id: {
        type: 'string',
        format: 'uuid',
        description:
          'Deterministic: the same fact always has the same id (a version 8 UUID from SHA-256 over the type and what identifies the fact). Drop duplicates by id: delivery is at least once.',
      },
      source: {
        type: 'string',
        format: 'uri-reference',
        description: `Which bridge sent the event: ${DEFAULT_EVENT_SOURCE} unless configured otherwise.`,
      },
      type: { const: type },
      time: {
        type: 'string',
        format: 'date-time',
        description: 'When the bridge observed the fact, RFC 3339 UTC.',
      },
      subject: { type: 'string', minLength: 1, description: 'What the event is about (docs/events.md).' },
      datacontenttype: { const: 'application/json' },
      dataschema: {
        const: dataSchemaUri(type),
        description:
          'The schema of data and its version: the $id of the schema file; without the "urn:pds-bridge:" prefix it is the file\'s path in the pds-bridge package.',
      },
      traceparent: {
        type: 'string',
        pattern: '^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$',
        description:
          'W3C trace context of the work that produced the event (CloudEvents distributed-tracing extension). The bridge always sets it; it is not part of id. How to continue the trace: docs/events.md, "Tracing".',
      },
      data: { $ref: dataSchemaRef(type) },
    },
  };
}

const claimCheckPointer: JsonSchema = {
  type: 'array',
  title: 'Claim-check pointer',
  description:
    'The body of a message whose event was too large to send inline (over 256 KiB by default): the class name and the pointer. The event is stored in the state bucket, in the format of the AWS SQS extended client libraries, which read it unchanged. The ExtendedPayloadSize attribute is set.',
  // A pair: the class name, then the pointer (`items` with oneOf reads the same in draft-07, which
  // AsyncAPI schemas follow, and in 2020-12, where tuples changed keyword).
  items: {
    oneOf: [
      { const: PAYLOAD_POINTER_CLASS },
      {
        type: 'object',
        required: ['s3BucketName', 's3Key'],
        properties: {
          s3BucketName: { type: 'string', description: 'The state bucket.' },
          s3Key: { type: 'string', description: 'claim-check/<event id>.json' },
        },
      },
    ],
  },
  minItems: 2,
  maxItems: 2,
};

function headersSchema(type: EventType): JsonSchema {
  return {
    type: 'object',
    description:
      'The SQS message attributes the bridge sets, so consumers can filter without reading the body.',
    required: ['type', 'id'],
    properties: {
      type: { type: 'string', const: type, description: 'String attribute: the event type.' },
      id: { type: 'string', format: 'uuid', description: 'String attribute: the event id.' },
      [EXTENDED_PAYLOAD_SIZE_ATTRIBUTE]: {
        type: 'integer',
        minimum: 0,
        description:
          'Number attribute, only on a claim-checked message: bytes of the stored event the body points to.',
      },
    },
  };
}

function message(type: EventType): JsonSchema {
  return {
    name: type,
    title: type,
    // The first sentence says what happened; the rest (what it does not say) is the description.
    summary: description(type).split('. ')[0]?.replace(/\.?$/, '.'),
    description: description(type),
    contentType: 'application/json',
    headers: headersSchema(type),
    payload: {
      oneOf: [{ $ref: `#/components/schemas/${type}` }, { $ref: '#/components/schemas/claimCheckPointer' }],
    },
    examples: exampleEvents()[type].map((event, index, all) => ({
      name: all.length === 1 ? type : `${type} (${index + 1})`,
      headers: { type: event.type, id: event.id },
      payload: event,
    })),
  };
}

const eventBridgePointer: JsonSchema = {
  type: 'object',
  title: 'EventBridge claim-check pointer',
  description:
    'The detail of an entry whose event was over the entry limit (256 KiB by default): the event is stored in the state bucket under the same key as on the SQS path; detail-type and source stay, so rules still match. The consumer kit follows it.',
  required: ['s3BucketName', 's3Key'],
  properties: {
    s3BucketName: { type: 'string', description: 'The state bucket.' },
    s3Key: { type: 'string', description: 'claim-check/<event id>.json' },
  },
};

/** The event as EventBridge delivers it to a rule's target: its envelope, the CloudEvent as detail. */
function eventBridgeEnvelope(type: EventType): JsonSchema {
  return {
    type: 'object',
    title: `${type} on EventBridge`,
    description:
      'The EventBridge event a rule matches and a target receives (a PutEvents entry: Source, DetailType, Detail, Time). detail is the whole CloudEvent, exactly as the queues carry it.',
    required: ['detail-type', 'source', 'detail'],
    properties: {
      version: { const: '0' },
      id: { type: 'string', description: 'Assigned by EventBridge; deduplicate by detail.id instead.' },
      'detail-type': { const: type, description: "The CloudEvent's type." },
      source: {
        type: 'string',
        description: `The CloudEvent's source (${DEFAULT_EVENT_SOURCE} unless configured otherwise): match it in rules.`,
      },
      account: { type: 'string' },
      time: { type: 'string', format: 'date-time', description: "The CloudEvent's time." },
      region: { type: 'string' },
      resources: { type: 'array', items: { type: 'string' } },
      detail: {
        oneOf: [
          { $ref: `#/components/schemas/${type}` },
          { $ref: '#/components/schemas/eventBridgePointer' },
        ],
      },
    },
  };
}

/** What a target receives for `event`, with fixed account, region and id (for the examples). */
function eventBridgeExample(event: { type: string; source: string; time: string }): JsonSchema {
  return {
    version: '0',
    id: EXAMPLE_EVENTBRIDGE_ID,
    'detail-type': event.type,
    source: event.source,
    account: '123456789012',
    time: event.time.replace(/\.\d+Z$/, 'Z'),
    region: 'eu-central-1',
    resources: [],
    detail: event,
  };
}

function eventBridgeMessage(type: EventType): JsonSchema {
  return {
    name: EVENT_BUS.messageId(type),
    title: `${type} (EventBridge)`,
    summary: description(type).split('. ')[0]?.replace(/\.?$/, '.'),
    description:
      `${description(type)} Sent to the bus when EVENT_DESTINATIONS routes its family to eventbridge or both.`.trim(),
    contentType: 'application/json',
    payload: eventBridgeEnvelope(type),
    examples: exampleEvents()[type].map((event, index, all) => ({
      name: all.length === 1 ? `${type} (EventBridge)` : `${type} (EventBridge, ${index + 1})`,
      payload: eventBridgeExample(event),
    })),
  };
}

function busChannel(): JsonSchema {
  return {
    address: EVENT_BUS.busName,
    title: EVENT_BUS.title,
    description: `The bus in ${EVENT_BUS.variable}: the one the template creates (--param eventBus=create, with an archive) or an existing one (--param eventBus=NAME). Which families are sent here: EVENT_DESTINATIONS (docs/events.md, "EventBridge").`,
    servers: [{ $ref: '#/servers/eventbridge' }],
    parameters: { stage: { description: 'The osls stage the bridge is deployed with.', default: 'dev' } },
    messages: Object.fromEntries(
      EVENT_TYPES.map((type) => [
        EVENT_BUS.messageId(type),
        { $ref: `#/components/messages/${EVENT_BUS.messageId(type)}` },
      ]),
    ),
  };
}

function channel(queue: EventQueue): JsonSchema {
  return {
    address: queue.queueName,
    title: queue.title,
    servers: [{ $ref: '#/servers/sqs' }],
    description: `The bridge's functions find the queue in ${queue.variable}. A consumer that fails a message ${queue.maxReceiveCount} times finds it in ${queue.deadLetterQueueName}.`,
    parameters: { stage: { description: 'The osls stage the bridge is deployed with.', default: 'dev' } },
    messages: Object.fromEntries(
      queue.types.map((type) => [type, { $ref: `#/components/messages/${type}` }]),
    ),
    bindings: {
      sqs: {
        queue: {
          name: queue.queueName,
          fifoQueue: false,
          messageRetentionPeriod: queue.messageRetentionPeriod,
          redrivePolicy: {
            deadLetterQueue: { name: queue.deadLetterQueueName },
            maxReceiveCount: queue.maxReceiveCount,
          },
        },
        deadLetterQueue: {
          name: queue.deadLetterQueueName,
          fifoQueue: false,
          messageRetentionPeriod: queue.messageRetentionPeriod,
        },
        bindingVersion: '0.2.0',
      },
    },
  };
}

function operation(queue: EventQueue): JsonSchema {
  return {
    action: 'send',
    title: `Send to the ${queue.title.toLowerCase()}`,
    channel: { $ref: `#/channels/${queue.channel}` },
    messages: queue.types.map((type) => ({ $ref: `#/channels/${queue.channel}/messages/${type}` })),
  };
}

/**
 * The AsyncAPI document; `version` is the package's (info.version).
 *
 * @example
 * writeFileSync('schemas/asyncapi.json', `${JSON.stringify(asyncApiDocument('0.1.0'), null, 2)}\n`);
 */
export function asyncApiDocument(version: string): JsonSchema {
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'pds-bridge events',
      version,
      description:
        'The CloudEvents the bridge sends to SQS and, where EVENT_DESTINATIONS says so, to an EventBridge bus (the CloudEvent as detail, its type as detail-type, its source as source). Each body is a CloudEvents 1.0 JSON document whose data follows the schema its dataschema names (schemas/events/<type>/v<version>.json). What each event means, the failure codes and the versioning policy: docs/events.md.',
    },
    defaultContentType: 'application/json',
    servers: {
      sqs: {
        host: 'sqs.{region}.amazonaws.com',
        protocol: 'sqs',
        description: 'Amazon SQS in the region the bridge is deployed to.',
        variables: { region: { default: 'eu-central-1', description: 'The osls region.' } },
      },
      eventbridge: {
        host: 'events.{region}.amazonaws.com',
        protocol: 'https',
        description:
          'Amazon EventBridge in the region the bridge is deployed to: PutEvents, at most 10 entries a call.',
        variables: { region: { default: 'eu-central-1', description: 'The osls region.' } },
      },
    },
    channels: {
      ...Object.fromEntries(EVENT_QUEUES.map((queue) => [queue.channel, channel(queue)])),
      [EVENT_BUS.channel]: busChannel(),
    },
    operations: {
      ...Object.fromEntries(EVENT_QUEUES.map((queue) => [`send.${queue.channel}`, operation(queue)])),
      [`send.${EVENT_BUS.channel}`]: {
        action: 'send',
        title: 'Send to the EventBridge bus',
        channel: { $ref: `#/channels/${EVENT_BUS.channel}` },
        messages: EVENT_TYPES.map((type) => ({
          $ref: `#/channels/${EVENT_BUS.channel}/messages/${EVENT_BUS.messageId(type)}`,
        })),
      },
    },
    components: {
      schemas: {
        ...Object.fromEntries(EVENT_TYPES.map((type) => [type, envelopeSchema(type)])),
        claimCheckPointer,
        eventBridgePointer,
      },
      messages: {
        ...Object.fromEntries(EVENT_TYPES.map((type) => [type, message(type)])),
        ...Object.fromEntries(
          EVENT_TYPES.map((type) => [EVENT_BUS.messageId(type), eventBridgeMessage(type)]),
        ),
      },
    },
  };
}
