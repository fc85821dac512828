/**
 * What the confirmation ledger calls AWS for, as grants the functions that keep it add to their rows
 * (packages/bridge/src/polling/permissions.ts, packages/bridge/src/publications/permissions.ts; test/integration/serverless-iam.test.ts
 * holds the roles to them). Entries are read and written, and deleted only by the retention sweep of
 * the scheduled review poller; a deadline mark is written by the publish worker and deleted by the
 * deadline check once its entries are up to date. Every writer of an entry keeps its index markers
 * (written before the entry, retired after it) and its expiry marker; a reader retires a stale marker
 * it meets (read-repair), so the api deletes markers too.
 */
import { actions, type Grant, sendsEvent, stateObjects } from '../lambda/permissions.ts';
import { STATE_STORE_ACTIONS } from '../state/s3/index.ts';
import {
  CONFIRMATION_DEADLINES_PREFIX,
  CONFIRMATION_EXPIRY_PREFIX,
  CONFIRMATION_INDEX_PREFIX,
  CONFIRMATION_STATS_PREFIX,
  CONFIRMATIONS_PREFIX,
} from './keys.ts';

const { read, write, delete: remove } = STATE_STORE_ACTIONS;

const entries = (why: string): Grant => ({
  resource: stateObjects(CONFIRMATIONS_PREFIX),
  actions: actions(read, write),
  why,
});

const changes = sendsEvent('pds.confirmation.changed');

/** The markers and the per-recipient aggregates every writer of an entry keeps beside it. */
const markers: Grant[] = [
  {
    resource: stateObjects(CONFIRMATION_STATS_PREFIX),
    actions: actions(read, write),
    why: 'counts each transition into its recipient’s day (conditional writes; never deleted)',
  },
  {
    resource: stateObjects(CONFIRMATION_INDEX_PREFIX),
    actions: actions(read, write, remove),
    why: 'keeps the index by state and GTIN: a marker written before each entry, retired after it',
  },
  {
    resource: stateObjects(CONFIRMATION_EXPIRY_PREFIX),
    actions: actions(read, write, remove),
    why: 'marks the day a settled entry expires, and unmarks an entry that is no longer settled',
  },
];

/** The grants of each part the ledger plays in a function. */
export const CONFIRMATION_GRANTS = Object.freeze({
  /** The publish worker: AWAITING entries and their deadline marks (it sends the events already). */
  publish: [
    entries('records the AWAITING confirmation entries of a publication'),
    {
      resource: stateObjects(CONFIRMATION_DEADLINES_PREFIX),
      actions: actions(read, write),
      why: 'marks when the entries of a publication turn OVERDUE',
    },
    ...markers,
  ] satisfies Grant[],
  /** The pollers: answers applied to the entries. */
  answers: [
    entries('applies confirmations and reviews to the confirmation entries'),
    ...markers,
    changes,
  ] satisfies Grant[],
  /** The scheduled review poller: answers, and the deadline check. */
  deadlines: [
    {
      resource: stateObjects(CONFIRMATIONS_PREFIX),
      actions: actions(read, write, remove),
      why: 'applies answers to the entries, turns unanswered ones OVERDUE, deletes settled ones past the retention',
    },
    ...markers,
    {
      resource: stateObjects(CONFIRMATION_DEADLINES_PREFIX),
      actions: actions(read, remove),
      why: 'lists the due deadline marks and deletes each once its entries are up to date',
    },
    changes,
  ] satisfies Grant[],
  /** The api: the entries as GET /confirmations shows them. */
  read: [
    {
      resource: stateObjects(CONFIRMATIONS_PREFIX),
      actions: actions(read),
      why: 'reads the confirmation entries (GET /confirmations, GET /publications/{id}/confirmations)',
    },
    {
      resource: stateObjects(CONFIRMATION_INDEX_PREFIX),
      actions: actions(read, remove),
      why: 'reads the index by state and GTIN; retires a marker its entry no longer matches (read-repair)',
    },
    {
      resource: stateObjects(CONFIRMATION_STATS_PREFIX),
      actions: actions(read),
      why: 'reads the per-recipient daily aggregates (GET /confirmations/recipients)',
    },
  ] satisfies Grant[],
});
