/**
 * What the confirmation ledger calls AWS for, as grants the functions that keep it add to their rows
 * (lib/polling/permissions.ts, lib/publications/permissions.ts; test/integration/serverless-iam.test.ts
 * holds the roles to them). Entries are read and written, never deleted; a deadline mark is written
 * by the publish worker and deleted by the deadline check once its entries are up to date.
 */
import { actions, type Grant, sendsEvent, stateObjects } from '../permissions.ts';
import { STATE_STORE_ACTIONS } from '../state/s3/index.ts';
import { CONFIRMATION_DEADLINES_PREFIX, CONFIRMATIONS_PREFIX } from './keys.ts';

const { read, write, delete: remove } = STATE_STORE_ACTIONS;

const entries = (why: string): Grant => ({
  resource: stateObjects(CONFIRMATIONS_PREFIX),
  actions: actions(read, write),
  why,
});

const changes = sendsEvent('pds.confirmation.changed');

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
  ] satisfies Grant[],
  /** The pollers: answers applied to the entries. */
  answers: [
    entries('applies confirmations and reviews to the confirmation entries'),
    changes,
  ] satisfies Grant[],
  /** The scheduled review poller: answers, and the deadline check. */
  deadlines: [
    entries('applies confirmations and reviews to the entries, and turns unanswered ones OVERDUE'),
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
  ] satisfies Grant[],
});
