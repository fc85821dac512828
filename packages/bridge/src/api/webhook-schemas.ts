/**
 * The schemas of the webhook routes (./webhook-routes.ts), registered in the API's registry so the
 * OpenAPI document names them and the contract test checks the answers against them.
 */
import * as z from '../core/zod.ts';

/** Builds the webhook schemas in `registry` (the API's, ./schemas.ts). */
export function createWebhookSchemas(registry: z.core.$ZodRegistry<z.core.JSONSchemaMeta>) {
  const timestamp = z.iso.datetime();
  const eventTypes = z.array(z.string().check(z.minLength(1))).check(z.maxLength(50));
  const subject = z.string().check(z.minLength(1), z.maxLength(1024));
  const description = z.string().check(z.maxLength(500));
  const headers = z.record(z.string(), z.string()).register(registry, {
    id: 'WebhookCustomHeaders',
    description:
      'Headers sent on every attempt, such as an API key the receiver requires: at most 10, 4096 bytes in all, values of visible ASCII without line breaks. Kept in the secret store and never shown again (views show the names only). Refused: webhook-*, content-type, content-length, content-encoding, host, transfer-encoding, connection, keep-alive, upgrade, te, trailer, expect, user-agent, proxy-authorization, proxy-connection.',
  });

  const endpointInput = z
    .strictObject({
      url: z.string().check(z.minLength(1), z.maxLength(2048)),
      eventTypes: z.optional(eventTypes),
      subject: z.optional(subject),
      description: z.optional(description),
      headers: z.optional(headers),
    })
    .register(registry, {
      id: 'WebhookEndpointInput',
      description:
        'A webhook endpoint: its URL (https on a public address when deployed), the event types it takes (empty or left out: every type), a subject filter (exact, or a prefix when it ends with *), a description and custom headers.',
    });

  const endpointUpdate = z
    .strictObject({
      url: z.optional(z.string().check(z.minLength(1), z.maxLength(2048))),
      eventTypes: z.optional(eventTypes),
      subject: z.optional(subject),
      description: z.optional(description),
      headers: z.optional(headers),
    })
    .register(registry, {
      id: 'WebhookEndpointUpdate',
      description:
        'The fields to change; the others stay. `headers` replaces every custom header ({} removes them).',
    });

  const endpoint = z
    .object({
      id: z.string(),
      url: z.string(),
      eventTypes: z.array(z.string()),
      subject: z.optional(z.string()),
      description: z.string(),
      status: z.enum(['enabled', 'disabled']),
      disabledReason: z.optional(z.string()),
      disabledAt: z.optional(timestamp),
      secretCount: z.number().check(z.int(), z.gte(0)),
      headerNames: z.described(
        z.array(z.string()),
        'The names of its custom headers (their values are never shown).',
      ),
      createdAt: timestamp,
      updatedAt: timestamp,
      failures: z.number().check(z.int(), z.gte(0)),
      failingSince: z.optional(timestamp),
      breakerOpenUntil: z.optional(timestamp),
      slowSince: z.optional(timestamp),
      slowAfterMs: z.optional(
        z.described(
          z.number().check(z.int(), z.gte(0)),
          "The main lane's budget (ms) its answer missed when it became slow: its tasks take the slow lane until it answers within it.",
        ),
      ),
      replayedAt: z.optional(timestamp),
    })
    .register(registry, {
      id: 'WebhookEndpoint',
      description:
        'A webhook endpoint without its secrets: status, the consecutive failed attempts (the breaker opens at 5) and since when it fails.',
    });

  const endpointWithSecret = z.object({ endpoint, secret: z.string() }).register(registry, {
    id: 'WebhookEndpointSecret',
    description: 'The endpoint and its new whsec_ secret: shown this once, store it in the receiver.',
  });

  const endpointList = z.object({ items: z.array(endpoint) }).register(registry, {
    id: 'WebhookEndpointList',
    description: 'Every webhook endpoint.',
  });

  const { delivery, deliveryList, replayRequest, replayResult, publicKey, endpointId } = deliverySchemas(
    registry,
    timestamp,
  );

  return {
    endpointInput,
    endpointUpdate,
    endpoint,
    endpointWithSecret,
    endpointList,
    delivery,
    deliveryList,
    replayRequest,
    replayResult,
    publicKey,
    endpointId,
  };
}

/** The delivery log, replay, the public key and the path parameter. */
function deliverySchemas(
  registry: z.core.$ZodRegistry<z.core.JSONSchemaMeta>,
  timestamp: z.ZodMiniISODateTime,
) {
  const attempt = z.object({
    at: timestamp,
    attempt: z.number().check(z.int(), z.gte(1)),
    status: z.optional(z.number().check(z.int())),
    latencyMs: z.number().check(z.gte(0)),
    response: z.string(),
    replay: z.optional(z.boolean()),
  });

  const delivery = z
    .object({
      endpointId: z.string(),
      eventId: z.string(),
      eventType: z.string(),
      status: z.enum(['pending', 'delivered', 'failed', 'undelivered']),
      reason: z.optional(z.string()),
      attempts: z.array(attempt),
      nextAttemptAt: z.optional(timestamp),
      updatedAt: timestamp,
    })
    .register(registry, {
      id: 'WebhookDelivery',
      description:
        'The delivery log of one event at one endpoint: every attempt (time, HTTP status, latency, first bytes of the answer or the error).',
    });

  const deliveryList = z.object({ items: z.array(delivery) }).register(registry, {
    id: 'WebhookDeliveryList',
    description: 'Delivery records of one endpoint, at most `limit`.',
  });

  const replayRequest = z
    .strictObject({
      eventIds: z.optional(
        z.array(z.string().check(z.minLength(1))).check(z.minLength(1), z.maxLength(1000)),
      ),
      since: z.optional(timestamp),
      until: z.optional(timestamp),
      failedOnly: z.optional(z.boolean()),
    })
    .register(registry, {
      id: 'WebhookReplayRequest',
      description:
        "Which events to send again, with their original ids: eventIds, or a time range (since ≤ time < until, until defaults to now; since no older than the delivery log's retention, WEBHOOK_RETENTION_DAYS), optionally only those not delivered to this endpoint.",
    });

  const replayResult = z
    .object({
      queued: z.array(z.string()),
      skipped: z.array(z.object({ eventId: z.string(), reason: z.string() })),
      next: z.optional(timestamp),
    })
    .register(registry, {
      id: 'WebhookReplayResult',
      description:
        'The event ids queued for the endpoint; those named by id that its event types or subject filter do not take (skipped, with the reason); and, when a time range has more events than one page (1000), `next`: send the same request again with `since` = `next`.',
    });

  const publicKey = z.object({ publicKey: z.string(), algorithm: z.literal('ed25519') }).register(registry, {
    id: 'WebhookPublicKey',
    description: 'The whpk_ public key that verifies the v1a (ed25519) signatures of every delivery.',
  });

  const endpointId = z.string().check(z.minLength(1)).register(registry, {
    description: 'A webhook endpoint id (ep_…), as POST /webhooks/endpoints answered.',
  });

  return { delivery, deliveryList, replayRequest, replayResult, publicKey, endpointId };
}
