/** The webhook family, `pds.webhook.endpoint-disabled`: its data type (the schema: ../types.ts). */

/** `pds.webhook.endpoint-disabled`: a webhook endpoint was disabled by the bridge. */
export interface WebhookEndpointDisabledData {
  endpointId: string;
  /** The endpoint's origin (scheme, host, port): never its path or query, which may hold a token. */
  url: string;
  /** `gone`: it answered 410; `failing`: it failed without a success for WEBHOOK_DISABLE_AFTER_HOURS. */
  reason: 'gone' | 'failing';
  detail: string;
  disabledAt: string;
  failingSince?: string;
}
