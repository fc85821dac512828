/**
 * One or more real example events per type, built by the same code the bridge runs (createEvent,
 * the XML parser) from fixed inputs. docs/events.md shows exactly these; a unit test fails when
 * the two drift apart. Print them with `node scripts/print-event-examples.ts`.
 */
import { withTraceparent } from '../core/index.ts';
import { parseMessagingAssetSafely } from '../xml/index.ts';
import type { MessagingAssetReceivedData } from './data/messages.ts';
import { type CloudEvent, createEvent } from './envelope.ts';
import type { EventDataMap, EventType } from './types.ts';

const TIME = '2026-11-20T09:15:00.000Z';
/** An invocation's X-Ray header `Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1`. */
const TRACEPARENT = '00-5759e988bd862e3fe1be46a994272793-53995c3f42cd8ad8-01';

const SYNCHRONISED_XML =
  '<cic:catalogueItemConfirmationMessage xmlns:cic="urn:gs1:gdsn:catalogue_item_confirmation:xsd:3">' +
  '<transaction><documentCommand><cic:catalogueItemConfirmation>' +
  '<catalogueItemConfirmationState><catalogueItemConfirmationStateCode>SYNCHRONISED</catalogueItemConfirmationStateCode>' +
  '<recipientGLN>0614141000005</recipientGLN></catalogueItemConfirmationState>' +
  '<catalogueItemReference><dataSource>0614141000012</dataSource><gtin>00614141123452</gtin>' +
  '<targetMarketCountryCode>276</targetMarketCountryCode></catalogueItemReference>' +
  '</cic:catalogueItemConfirmation></documentCommand></transaction></cic:catalogueItemConfirmationMessage>';

const REVIEW_XML =
  '<gdsn:catalogueItemConfirmation xmlns:gdsn="urn:ean.ucc:gdsn:2">' +
  '<catalogueItemConfirmationState state="REVIEW"><recipientGLN>0614141000005</recipientGLN></catalogueItemConfirmationState>' +
  '<catalogueItemReference><dataSource>0614141000012</dataSource><gtin>00614141123469</gtin>' +
  '<targetMarketCountryCode>528</targetMarketCountryCode></catalogueItemReference>' +
  '<catalogueItemConfirmationStatusDetail><catalogueItemConfirmationStatus>' +
  '<confirmationStatusCode>CIC999</confirmationStatusCode>' +
  '<confirmationStatusCodeDescription languageCode="en">Image missing &amp; net content unclear.</confirmationStatusCodeDescription>' +
  '<correctiveAction><correctiveActionCode>ACTION_NEEDED</correctiveActionCode></correctiveAction>' +
  '</catalogueItemConfirmationStatus></catalogueItemConfirmationStatusDetail></gdsn:catalogueItemConfirmation>';

const REFUSAL_XML =
  '<gs1_response:gS1ResponseMessage xmlns:gs1_response="urn:gs1:gdsn:gs1_response:xsd:3" xmlns:sh="http://www.unece.org/cefact/namespaces/StandardBusinessDocumentHeader">' +
  '<sh:StandardBusinessDocumentHeader><sh:Sender><sh:Identifier>0614141000029</sh:Identifier></sh:Sender>' +
  '<sh:DocumentIdentification><sh:TypeVersion>3.1</sh:TypeVersion><sh:InstanceIdentifier>RESP-2026-004401</sh:InstanceIdentifier>' +
  '<sh:CreationDateAndTime>2026-11-20T09:20:00.000Z</sh:CreationDateAndTime></sh:DocumentIdentification></sh:StandardBusinessDocumentHeader>' +
  '<gS1Response><originatingMessageIdentifier><entityIdentification>CIN-2026-008813</entityIdentification></originatingMessageIdentifier>' +
  '<transactionResponse><transactionIdentifier><entityIdentification>TX-008813</entityIdentification></transactionIdentifier>' +
  '<responseStatusCode>REJECTED</responseStatusCode></transactionResponse>' +
  '<gS1Exception><transactionException><entityIdentification>TX-008813</entityIdentification>' +
  '<commandException><entityIdentification>DC-008813</entityIdentification>' +
  '<documentException><entityIdentification>CINID-008813</entityIdentification>' +
  '<gS1Error><errorCode>GDSN.1091</errorCode><errorDateTime>2026-11-20T09:19:58.000Z</errorDateTime>' +
  '<errorDescription languageCode="en">GTIN 00614141123520 already exists in target market 276.</errorDescription></gS1Error>' +
  '</documentException></commandException></transactionException></gS1Exception></gS1Response></gs1_response:gS1ResponseMessage>';

const BROKEN_XML =
  '<catalogueItemConfirmation>\n  <gtin>00614141123476</gtin>\n</catalogueItemConfirmationState>';

function parsed(xml: string) {
  const result = parseMessagingAssetSafely(xml);
  if (!result.ok) throw new Error(`example XML does not parse: ${result.error.message}`);
  return {
    document: result.document,
    ...(result.cic === undefined ? {} : { cic: result.cic }),
    ...(result.gdsn === undefined ? {} : { gdsn: result.gdsn }),
  };
}

function parseErrorOf(xml: string) {
  const result = parseMessagingAssetSafely(xml);
  if (result.ok) throw new Error('broken example XML parsed');
  return result.error;
}

type Examples = { [T in EventType]: Array<CloudEvent<T>> };

/** One example event of `type` at {@link TIME}: what every example below is built with. */
function example<T extends EventType>(
  type: T,
  subject: string,
  idParts: ReadonlyArray<string | number>,
  data: EventDataMap[T],
): CloudEvent<T> {
  return createEvent({ type, subject, idParts, time: TIME, data });
}

/** The example events of every type, in catalogue order. */
export function exampleEvents(): Examples {
  return withTraceparent(TRACEPARENT, examples);
}

function examples(): Examples {
  return {
    ...ingestExamples(),
    'pds.messaging-asset.received': messagingAssetExamples(),
    'pds.supplier-review.received': supplierReviewExamples(),
    ...publicationExamples(),
    'pds.confirmation.changed': confirmationExamples(),
    'pds.webhook.endpoint-disabled': webhookExamples(),
  };
}

/** An endpoint that answered 410 Gone. */
function webhookExamples(): Array<CloudEvent<'pds.webhook.endpoint-disabled'>> {
  return [
    example(
      'pds.webhook.endpoint-disabled',
      'ep_5f0c3a9e1b2d4c6a8e9f0a1b',
      ['ep_5f0c3a9e1b2d4c6a8e9f0a1b', '2026-11-20T09:15:00.000Z'],
      {
        endpointId: 'ep_5f0c3a9e1b2d4c6a8e9f0a1b',
        url: 'https://erp.example.com',
        reason: 'gone',
        detail: 'the endpoint answered 410 Gone',
        disabledAt: '2026-11-20T09:15:00.000Z',
      },
    ),
  ];
}

/** The dropped object both ingest examples are about. */
const DROPPED = {
  bucket: 'pds-drop',
  key: 'incoming/items.csv',
  versionId: '3HL4kqtJlcpXroDTDmJ.rmSpXd3dIbrHY',
} as const;

/** An ingest that imported its one entry, and one the PDS refused credentials for. */
function ingestExamples(): Pick<Examples, 'pds.ingest.completed' | 'pds.ingest.failed'> {
  const subject = `s3://${DROPPED.bucket}/${DROPPED.key}`;
  const writeIdParts = [DROPPED.bucket, DROPPED.key, DROPPED.versionId];
  const gatheringKey = 'c9a1e7d2-5b0f-4f53-9e43-2f6d8e1b7a10';
  return {
    'pds.ingest.completed': [
      example('pds.ingest.completed', subject, [...writeIdParts, gatheringKey], {
        ...DROPPED,
        size: 18342,
        gatheringKey,
        entriesImported: [{ path: 'items.csv', assetKey: '5f2b9c4e-8d1a-4c3b-a7e6-0b9d2f4e6a81' }],
        outcome: 'import-accepted',
      }),
    ],
    'pds.ingest.failed': [
      example('pds.ingest.failed', subject, writeIdParts, {
        ...DROPPED,
        code: 'unauthorized',
        reason: 'PDS answered 401 to POST /api/v1/gatherings (check PDS_USERNAME / PDS_PASSWORD)',
        pdsStatus: 401,
        retryable: false,
      }),
    ],
  };
}

/** A confirmation parsed, a data pool's refusal, XML that does not parse, and an asset passed without its message. */
function messagingAssetExamples(): Array<CloudEvent<'pds.messaging-asset.received'>> {
  const received = (messagingAssetId: number, data: Omit<MessagingAssetReceivedData, 'messagingAssetId'>) =>
    example('pds.messaging-asset.received', `messaging-asset/${messagingAssetId}`, [messagingAssetId], {
      messagingAssetId,
      ...data,
    });
  return [
    received(1042, {
      createdAt: 1_795_166_040_000,
      primaryKey: '00614141123452',
      ...parsed(SYNCHRONISED_XML),
    }),
    received(1043, {
      createdAt: 1_795_166_070_000,
      parseError: parseErrorOf(BROKEN_XML),
      rawXml: BROKEN_XML,
    }),
    received(1046, {
      createdAt: 1_795_166_400_000,
      primaryKey: '00614141123520',
      ...parsed(REFUSAL_XML),
    }),
    received(1045, {
      createdAt: 1_795_166_100_000,
      messageError: {
        name: 'PdsServerError',
        message:
          'PDS answered 500 to GET /api/v1/messaging/messagingassets/1045 (failed on 5 consecutive runs; passed without its message)',
        status: 500,
        failedRuns: 5,
      },
    }),
  ];
}

/** A review asking for corrections, with its confirmation parsed. */
function supplierReviewExamples(): Array<CloudEvent<'pds.supplier-review.received'>> {
  return [
    example('pds.supplier-review.received', 'item/00614141123469', ['00614141123469', 'f3b1c0de9a7e4d21'], {
      review: {
        primaryKey: '00614141123469',
        supplierId: 'SUP-0001',
        channelId: 'gdsn-main',
        messagingAssetId: 1044,
        supplier: 'Example Foods',
        reviewer: 'Data pool',
        reviewStatus: 'REVIEW',
        date: 1_795_165_980_000,
        comment: '',
        messagingCreatorType: 'REVIEW',
      },
      messagingAssetId: 1044,
      ...parsed(REVIEW_XML),
    }),
  ];
}

/** A publication of two items, and one the PDS rejected for an unknown key. */
function publicationExamples(): Pick<Examples, 'pds.publication.completed' | 'pds.publication.failed'> {
  const completedId = '7d3f0a52-1c4b-4e8a-9f26-3b5d7c9e1a04';
  const failedId = '0b8e4c17-6a2d-4f9b-8c31-5e7a9d2f4b60';
  return {
    'pds.publication.completed': [
      example('pds.publication.completed', `publication/${completedId}`, [completedId], {
        publicationId: completedId,
        selectionId: 'sel-000318',
        numberOfItems: 2,
        destinations: [{ destinationType: 'COMMUNICATION_CHANNEL', destinationId: 'gdsn-main' }],
        primaryKeys: ['00614141123452', '00614141123469'],
      }),
    ],
    'pds.publication.failed': [
      example('pds.publication.failed', `publication/${failedId}`, [failedId], {
        publicationId: failedId,
        code: 'rejected',
        reason: 'PDS answered 404 to POST /api/v1/selections: unknown primary keys 00614141999999',
        pdsStatus: 404,
        retryable: false,
      }),
    ],
  };
}

/** The review above moving its item's confirmation from AWAITING to REVIEW; the refusal above refusing an item. */
function confirmationExamples(): Array<CloudEvent<'pds.confirmation.changed'>> {
  return [
    example(
      'pds.confirmation.changed',
      'item/00614141123469',
      [
        'confirmations/00614141123469/gdsn-main/_.json',
        'asset:1044:00614141123469:0614141000005:528',
        'AWAITING',
        'REVIEW',
      ],
      {
        entry: {
          primaryKey: '00614141123469',
          channelId: 'gdsn-main',
          gtin: '00614141123469',
          recipientGln: '0614141000005',
          targetMarket: '528',
        },
        previousState: 'AWAITING',
        state: 'REVIEW',
        since: '2026-11-20T09:13:00.000Z',
        cause: 'confirmation',
        publications: [
          {
            publicationId: '7d3f0a52-1c4b-4e8a-9f26-3b5d7c9e1a04',
            publishedAt: '2026-11-20T08:02:11.000Z',
          },
        ],
        correctiveActions: [
          {
            statusCode: 'CIC999',
            code: 'ACTION_NEEDED',
            description: 'Image missing & net content unclear.',
          },
        ],
        messagingAssetId: 1044,
        reviewId: '3c5e2a90-8b1d-8f4e-a6c2-9d7b0e1f2a34',
      },
    ),
    example(
      'pds.confirmation.changed',
      'item/00614141123520',
      ['confirmations/00614141123520/gdsn-main/_.json', 'refusal:1046', 'AWAITING', 'REFUSED_BY_DATA_POOL'],
      {
        entry: { primaryKey: '00614141123520', channelId: 'gdsn-main' },
        previousState: 'AWAITING',
        state: 'REFUSED_BY_DATA_POOL',
        since: '2026-11-20T09:20:00.000Z',
        cause: 'refusal',
        publications: [
          {
            publicationId: '7d3f0a52-1c4b-4e8a-9f26-3b5d7c9e1a04',
            publishedAt: '2026-11-20T08:02:11.000Z',
          },
        ],
        correctiveActions: [
          {
            statusCode: 'GDSN.1091',
            code: '',
            description: 'GTIN 00614141123520 already exists in target market 276.',
            gtin: '00614141123520',
          },
        ],
        reason: {
          source: 'data-pool',
          code: 'GDSN.1091',
          text: 'GTIN 00614141123520 already exists in target market 276.',
          senderGln: '0614141000029',
        },
        messagingAssetId: 1046,
      },
    ),
  ];
}

/** Indented JSON down to `depth` levels, one line per value below, so long documents stay short. */
export function formatExample(value: unknown, depth = 3, indent = ''): string {
  if (depth === 0 || value === null || typeof value !== 'object') return JSON.stringify(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((item) => `${inner}${formatExample(item, depth - 1, inner)}`).join(',\n')}\n${indent}]`;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return '{}';
  const lines = entries.map(
    ([key, item]) => `${inner}${JSON.stringify(key)}: ${formatExample(item, depth - 1, inner)}`,
  );
  return `{\n${lines.join(',\n')}\n${indent}}`;
}
