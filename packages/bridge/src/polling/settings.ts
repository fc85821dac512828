/**
 * The pollers' own configuration variables, declared once for `loadConfig` (packages/bridge/src/config/load.ts): each
 * handler passes the specs it uses and gets one ConfigError naming every bad variable at cold start.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `POLL_CONCURRENCY` | 8 | PDS requests in flight per invocation |
 * | `POLL_FAILURE_LIMIT` | 5 | consecutive failed runs after which an asset or review is emitted with `messageError` and passed |
 * | `POLL_FIRST_RUN` | now | messaging assets without a checkpoint: `now` (skip what exists) or `backlog` (emit it) |
 * | `POLL_PAGE_SIZE` | 100 | messaging assets per publish and checkpoint write |
 * | `POLL_LISTING_PAGING` | auto | messaging-asset listing: `auto` (read only its new part where the PDS pages it, detected) or `off` (read it whole) |
 * | `POLL_LISTING_PAGE_LIMIT` | 1000 | listing entries asked for per paged request |
 * | `POLL_MAX_ASSETS_PER_RUN` | 10000 | most new messaging assets one run takes on; the rest wait for the next run |
 * | `POLL_AUDIT_APPLY` | true | the scheduled audit emits the gaps it finds (`false`: report only) |
 * | `POLL_REVIEWS_INLINE_MAX` | 200 | most watched keys the scheduled run polls itself |
 * | `POLL_REVIEWS_CHUNK_SIZE` | 100 | watched keys per fan-out message |
 * | `REVIEW_POLL_QUEUE_URL` | — | the fan-out queue; unset: every key is polled inline |
 * | `XML_MAX_BYTES` | 10485760 | largest messaging-asset XML parsed, in UTF-8 bytes (at most 64 MiB) |
 * | `XML_MAX_DEPTH` | 100 | deepest element nesting below the root (at most 1000) |
 * | `XML_MAX_ELEMENTS` | 200000 | most elements in one messaging asset, the root included (at most 1,000,000) |
 * | `XML_MAX_ATTRIBUTES` | 200000 | most attributes in one messaging asset, namespace declarations included (at most 1,000,000) |
 * | `CONFIRMATION_DEADLINE_HOURS` | 48 | see packages/bridge/src/confirmations/settings.ts |
 * | `REPUBLISH_ON_RESEND_REQUEST` | false | poll-messaging-assets republishes what a recipient's resend request names (packages/bridge/src/confirmations/resend.ts); needs `PUBLICATION_QUEUE_URL` |
 */

import { setting } from '../config/index.ts';
import { CONFIRMATION_SETTINGS } from '../confirmations/settings.ts';
import {
  DEFAULT_MAX_XML_ATTRIBUTES,
  DEFAULT_MAX_XML_BYTES,
  DEFAULT_MAX_XML_DEPTH,
  DEFAULT_MAX_XML_ELEMENTS,
} from '../xml/index.ts';
import { DEFAULT_FAILURE_LIMIT } from './poison.ts';

/** Entries asked for per paged request of the messaging-asset listing. */
export const DEFAULT_LISTING_PAGE_LIMIT = 1000;
/**
 * Most new messaging assets one run takes on: what a run holds in memory besides the record of
 * emitted ids (about 10 000 × 200 bytes). At 8 fetches in flight and 50 ms per fetch a run emits about
 * 160 a second, so 10 000 fit well within the 5-minute schedule interval.
 */
export const DEFAULT_MAX_ASSETS_PER_RUN = 10_000;

/** Settings both pollers read. */
export const POLL_SETTINGS = {
  POLL_CONCURRENCY: setting.integer('PDS requests in flight per invocation, e.g. 8', {
    min: 1,
    max: 64,
    default: 8,
  }),
  POLL_FAILURE_LIMIT: setting.integer(
    'consecutive failed runs after which a messaging asset or review is emitted with messageError and passed, e.g. 5',
    { min: 1, max: 1000, default: DEFAULT_FAILURE_LIMIT },
  ),
  // The pollers keep the confirmation ledger: an answer read late is weighed against the deadline.
  ...CONFIRMATION_SETTINGS,
};

/** Settings of poll-messaging-assets. */
export const MESSAGING_ASSET_POLL_SETTINGS = {
  ...POLL_SETTINGS,
  POLL_FIRST_RUN: setting.oneOf(
    ['now', 'backlog'],
    'what the first run without a checkpoint does: now (record existing assets as done) or backlog (emit them)',
    { default: 'now' },
  ),
  POLL_PAGE_SIZE: setting.integer('messaging assets per publish and checkpoint write, e.g. 100', {
    min: 1,
    max: 1000,
    default: 100,
  }),
  POLL_LISTING_PAGING: setting.oneOf(
    ['auto', 'off'],
    'how the messaging-asset listing is read: auto (only its new part where the PDS pages it, detected) or off (whole)',
    { default: 'auto' },
  ),
  POLL_LISTING_PAGE_LIMIT: setting.integer('listing entries asked for per paged request, e.g. 1000', {
    min: 2,
    max: 100_000,
    default: DEFAULT_LISTING_PAGE_LIMIT,
  }),
  POLL_MAX_ASSETS_PER_RUN: setting.integer('most new messaging assets one run takes on, e.g. 10000', {
    min: 1,
    max: 1_000_000,
    default: DEFAULT_MAX_ASSETS_PER_RUN,
  }),
  // A parsed element costs far more heap than its text: the counts, not the bytes, bound the memory
  // of one document (docs/security.md, "Sizes and counts"). The ceilings keep a typo from lifting them.
  XML_MAX_BYTES: setting.integer('largest messaging-asset XML parsed, in UTF-8 bytes, e.g. 10485760', {
    min: 1,
    max: 64 * 1024 * 1024,
    default: DEFAULT_MAX_XML_BYTES,
  }),
  XML_MAX_DEPTH: setting.integer('deepest element nesting below the root of a messaging asset, e.g. 100', {
    min: 1,
    max: 1000,
    default: DEFAULT_MAX_XML_DEPTH,
  }),
  XML_MAX_ELEMENTS: setting.integer('most elements in one messaging asset, the root included, e.g. 200000', {
    min: 1,
    max: 1_000_000,
    default: DEFAULT_MAX_XML_ELEMENTS,
  }),
  XML_MAX_ATTRIBUTES: setting.integer('most attributes in one messaging asset, e.g. 200000', {
    min: 1,
    max: 1_000_000,
    default: DEFAULT_MAX_XML_ATTRIBUTES,
  }),
  REPUBLISH_ON_RESEND_REQUEST: setting.boolean(
    "whether a recipient's resend request republishes the items it names that the bridge published (through PUBLICATION_QUEUE_URL)",
    { default: false },
  ),
  POLL_AUDIT_APPLY: setting.boolean(
    'whether the scheduled audit emits the gaps it finds (false: report only)',
    {
      default: true,
    },
  ),
};

/** Settings of poll-supplier-reviews and its fan-out worker. */
export const REVIEW_POLL_SETTINGS = {
  ...POLL_SETTINGS,
  POLL_REVIEWS_INLINE_MAX: setting.integer('most watched keys polled inside the scheduled run, e.g. 200', {
    min: 0,
    max: 100_000,
    default: 200,
  }),
  POLL_REVIEWS_CHUNK_SIZE: setting.integer('watched keys per fan-out message, e.g. 100', {
    min: 1,
    max: 1000,
    default: 100,
  }),
  REVIEW_POLL_QUEUE_URL: setting.url('the internal SQS queue that fans watched keys out to the worker'),
};
