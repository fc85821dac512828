/** The webhook family: `pds.webhook.endpoint-disabled`, its data type and schema. */
import * as z from '../../core/zod.ts';
import { described } from '../../core/zod.ts';
import { nonEmpty, optionalText } from './fields.ts';

/** `pds.webhook.endpoint-disabled`: a webhook endpoint was disabled by the bridge. */
export interface WebhookEndpointDisabledData {
  endpointId: string;
  url: string;
  /** `gone`: it answered 410; `failing`: it failed without a success for WEBHOOK_DISABLE_AFTER_HOURS. */
  reason: 'gone' | 'failing';
  detail: string;
  disabledAt: string;
  failingSince?: string;
}

/** zod schema of `pds.webhook.endpoint-disabled` data. */
export const webhookEndpointDisabledSchema = () =>
  described(
    z.object({
      endpointId: described(nonEmpty(), 'The webhook endpoint, as GET /webhooks/endpoints lists it.'),
      url: described(nonEmpty(), 'The URL deliveries went to.'),
      reason: described(
        z.enum(['gone', 'failing']),
        'gone: the endpoint answered 410 Gone; failing: no attempt succeeded for WEBHOOK_DISABLE_AFTER_HOURS.',
      ),
      detail: described(z.string(), 'What the bridge saw, in words.'),
      disabledAt: described(z.string(), 'When it was disabled, RFC 3339.'),
      failingSince: optionalText('The first failed attempt since the last success, RFC 3339.'),
    }),
    'The bridge disabled a webhook endpoint: nothing is sent to it until it is enabled again (POST /webhooks/endpoints/{id}/enable), and the events it missed are recorded as undelivered and can be replayed.',
  );
