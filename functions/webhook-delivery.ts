/**
 * Webhook delivery: consumes the webhook queue (SQS, partial batch responses): events offered to
 * webhooks become one task per matching endpoint, and each task one signed POST (Standard Webhooks
 * 1.0). Logic: lib/webhooks (handlers.ts wires it).
 */
import { lambdaHandler } from '../lib/handler.ts';
import { createWebhookDeliveryHandler } from '../lib/webhooks/handlers.ts';

export const handler = lambdaHandler(createWebhookDeliveryHandler(process.env));
