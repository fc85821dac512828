/**
 * The configuration variables of webhook delivery (the webhook-delivery function and the api).
 */
import { type SettingValues, setting } from '../config/index.ts';
import { URL_POLICIES } from './url-policy.ts';

export const WEBHOOK_SETTINGS = Object.freeze({
  WEBHOOK_SLOW_QUEUE_URL: setting.url(
    'the slow lane of webhook delivery: the tasks of endpoints whose last attempt failed, so they never hold the main queue (required by webhook-delivery)',
  ),
  WEBHOOK_URL_POLICY: setting.oneOf(
    URL_POLICIES,
    'which endpoint URLs are accepted: public (https, public addresses only; deployed) or any (http and private addresses too; the local stack)',
    { default: 'public' },
  ),
  WEBHOOK_TIMEOUT_MS: setting.integer(
    "ms one delivery attempt may take, from connect to the answer's last byte, before it is aborted and counts as failed",
    {
      min: 100,
      max: 60_000,
      default: 10_000,
    },
  ),
  WEBHOOK_MAIN_LANE_MS: setting.integer(
    "the most (ms) an attempt on the main lane may take before it is stopped (not counted as failed) and handed to the slow lane, where it has WEBHOOK_TIMEOUT_MS: the budget is five times the lane's median answer, up to this; the endpoint stays on the slow lane until it answers within the budget it missed",
    { min: 100, max: 60_000, default: 2_000 },
  ),
  WEBHOOK_DISABLE_AFTER_HOURS: setting.integer(
    'hours an endpoint may fail without one success before it is disabled (pds.webhook.endpoint-disabled)',
    { min: 1, max: 2400, default: 120 },
  ),
  WEBHOOK_RETENTION_DAYS: setting.integer(
    'days the events offered to webhooks and the delivery log are kept (the state bucket lifecycle, --param webhookRetentionDays): the oldest a replay may start',
    { min: 1, max: 3650, default: 30 },
  ),
  WEBHOOK_SECRETS_PREFIX: setting.string(
    'AWS Secrets Manager name prefix of the webhook secrets (endpoint secrets, custom headers, the signing key); deployed pds-bridge/<stage>/. One of it and WEBHOOK_SECRETS_DIR is required by webhook-delivery and the api',
    {
      pattern: /^[A-Za-z0-9/_+=.@-]{1,200}\/$/,
      hint: 'a Secrets Manager name prefix ending in / (pds-bridge/prod/)',
    },
  ),
  WEBHOOK_SECRETS_DIR: setting.string(
    'a local folder for the webhook secrets instead of Secrets Manager (files of mode 0600; the local stack sets it)',
  ),
  WEBHOOK_ROTATION_OVERLAP_HOURS: setting.integer(
    'hours a rotated-out secret keeps signing beside the new one',
    { min: 0, max: 720, default: 24 },
  ),
});

/** Values of the webhook variables. */
export type WebhookSettingValues = SettingValues<typeof WEBHOOK_SETTINGS>;
