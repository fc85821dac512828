/**
 * Webhook delivery: consumes the webhook queue (SQS, partial batch responses): events offered to
 * webhooks become one task per matching endpoint, and each task one signed POST (Standard Webhooks
 * 1.0). Logic: packages/bridge/src/webhooks (handlers.ts wires it).
 */
import { lambdaHandler } from '../src/lambda/handler.ts';
import { createWebhookDeliveryHandler } from '../src/webhooks/handlers.ts';

export const handler = lambdaHandler(createWebhookDeliveryHandler(process.env));
