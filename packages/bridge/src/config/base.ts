/**
 * The base variables of the README's Configuration table, which every function reads, and
 * the shape of a loaded configuration.
 */
import { type EventDestinations, parseEventDestinations } from './event-destinations.ts';
import { type SettingSpec, type SettingValues, setting } from './settings.ts';

/** EVENT_DESTINATIONS: where each event family goes (packages/bridge/src/config/event-routing.ts); unset, SQS only. */
const eventDestinationsSetting: SettingSpec<EventDestinations | undefined> = Object.freeze({
  description:
    'where each event family goes: sqs (default), eventbridge or both, with family=destination overrides, e.g. sqs,publication=both',
  read: (raw: string | undefined) =>
    raw === undefined ? { ok: true as const, value: undefined } : parseEventDestinations(raw),
  secret: false,
});

/** The variables of the README's Configuration table. */
export const BASE_SETTINGS = Object.freeze({
  PDS_BASE_URL: setting.url(
    'the PDS address; /api/v1 and /v1 are appended to it, e.g. https://pds.example.com',
    {
      required: true,
    },
  ),
  PDS_USERNAME: setting.string('the PDS user, for local and development use'),
  PDS_PASSWORD: setting.string('the password of PDS_USERNAME', { secret: true }),
  PDS_CREDENTIALS_SECRET_ID: setting.string(
    'the Secrets Manager secret (name or ARN) holding {"username","password"}, for production',
  ),
  STATE_BUCKET: setting.bucketName(
    'the S3 bucket for checkpoints, idempotency records, the watch list and claim-check payloads',
  ),
  EVENTS_QUEUE_URL: setting.url('the SQS queue URL for every event type unless overridden'),
  INGEST_EVENTS_QUEUE_URL: setting.url(
    'the SQS queue URL for pds.ingest.* events (overrides EVENTS_QUEUE_URL)',
  ),
  MESSAGING_ASSET_EVENTS_QUEUE_URL: setting.url(
    'the SQS queue URL for pds.messaging-asset.* events (overrides EVENTS_QUEUE_URL)',
  ),
  SUPPLIER_REVIEW_EVENTS_QUEUE_URL: setting.url(
    'the SQS queue URL for pds.supplier-review.* events (overrides EVENTS_QUEUE_URL)',
  ),
  PUBLICATION_EVENTS_QUEUE_URL: setting.url(
    'the SQS queue URL for pds.publication.* events (overrides EVENTS_QUEUE_URL)',
  ),
  CONFIRMATION_EVENTS_QUEUE_URL: setting.url(
    'the SQS queue URL for pds.confirmation.* events (overrides EVENTS_QUEUE_URL)',
  ),
  EVENT_BUS_NAME: setting.string(
    'the EventBridge bus (name or ARN) the families EVENT_DESTINATIONS routes to eventbridge go to; checked before the first send',
    {
      pattern: /^(arn:aws[\w-]*:events:[a-z0-9-]+:\d{12}:event-bus\/)?[\w.\-/]{1,256}$/,
      hint: 'an EventBridge bus name or ARN',
    },
  ),
  EVENT_DESTINATIONS: eventDestinationsSetting,
  WEBHOOK_QUEUE_URL: setting.url(
    'the SQS queue of webhook delivery: every event is also offered to webhooks through it (unset: no webhooks)',
  ),
  PUBLICATION_QUEUE_URL: setting.url(
    'the internal SQS queue URL between the api and publish-worker functions',
  ),
  AWS_REGION: setting.string('the AWS region, e.g. eu-central-1', {
    pattern: /^[a-z]{2,}(-[a-z0-9]+)+$/,
    hint: 'an AWS region name such as eu-central-1',
  }),
  AWS_ENDPOINT_URL: setting.url('an endpoint for every AWS service, e.g. a local emulator'),
  AWS_ENDPOINT_URL_S3: setting.url('an endpoint for S3, e.g. a local emulator'),
  AWS_ENDPOINT_URL_SQS: setting.url('an endpoint for SQS, e.g. a local emulator'),
});

/** Values of the base variables. */
export type BaseSettings = SettingValues<typeof BASE_SETTINGS>;

/**
 * Where the PDS credentials come from: PDS_CREDENTIALS_SECRET_ID when set (it wins over the variables),
 * else PDS_USERNAME and PDS_PASSWORD. `password` is not enumerable, so it stays out of logs and JSON.
 */
export type PdsCredentialSource =
  | { readonly kind: 'basic'; readonly username: string; readonly password: string }
  | { readonly kind: 'secret'; readonly secretId: string };

/** The validated, frozen configuration of one function. */
export interface Config<S = BaseSettings> {
  /** PDS_BASE_URL without trailing slash. */
  readonly pdsBaseUrl: string;
  readonly pdsCredentials: PdsCredentialSource;
  /** Every variable by name; optional ones are `undefined` when unset. Secrets are not enumerable. */
  readonly settings: Readonly<S>;
}
