/**
 * The ledger's state rule on its own (packages/bridge/src/confirmations/entry.ts): the latest fact by its own time
 * wins, an answer wins a tie with a publication, OVERDUE only past the deadline of the latest
 * publication with no answer since, and what an entry keeps is bounded.
 */
import { describe, expect, it } from 'vitest';
import {
  applyFacts,
  type Fact,
  MAX_PUBLICATIONS,
  stateOf,
} from '../../packages/bridge/src/confirmations/entry.ts';
import { publicationFact } from '../../packages/bridge/src/confirmations/facts.ts';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-20T08:00:00.000Z');
const iso = (hours: number) => new Date(T0 + hours * HOUR).toISOString();
const answer = (state: string, hours: number, id = state): Fact => ({
  id: `asset:${id}`,
  kind: 'confirmation',
  state,
  at: iso(hours),
});

describe('stateOf', () => {
  it('takes the latest fact by its own time, whatever order the facts came in', () => {
    const facts = [answer('SYNCHRONISED', 3), publicationFact('p1', iso(0)), answer('RECEIVED', 1)];

    expect(stateOf(facts, 48 * HOUR, new Date(T0 + 4 * HOUR))?.state).toBe('SYNCHRONISED');
    expect(stateOf(facts.reverse(), 48 * HOUR, new Date(T0 + 4 * HOUR))?.state).toBe('SYNCHRONISED');
  });

  it('lets an answer created at the same instant as a publication win, and OVERDUE only without an answer', () => {
    const tie = [publicationFact('p1', iso(0)), answer('REVIEW', 0)];
    const silent = [publicationFact('p1', iso(0))];

    expect(stateOf(tie, 48 * HOUR, new Date(T0 + 100 * HOUR))?.state).toBe('REVIEW');
    expect(stateOf(silent, 48 * HOUR, new Date(T0 + 47 * HOUR))?.state).toBe('AWAITING');
    expect(stateOf(silent, 48 * HOUR, new Date(T0 + 48 * HOUR))).toMatchObject({
      state: 'OVERDUE',
      since: iso(48),
    });
  });
});

describe('applyFacts', () => {
  it('keeps the latest publications only, and does nothing for facts it has seen', () => {
    const context = {
      key: { primaryKey: 'k', channelId: 'c' },
      deadlineMs: 48 * HOUR,
      now: new Date(T0 + 100 * HOUR),
      eventIdOf: () => 'id',
    };
    let entry = applyFacts(undefined, [publicationFact('p0', iso(0))], context);
    for (let index = 1; index <= MAX_PUBLICATIONS + 10; index++) {
      entry = applyFacts(entry, [publicationFact(`p${index}`, iso(index))], context) ?? entry;
    }

    expect(entry?.publications).toHaveLength(MAX_PUBLICATIONS);
    expect(entry?.publications.at(-1)?.publicationId).toBe(`p${MAX_PUBLICATIONS + 10}`);
    expect(applyFacts(entry, [publicationFact('p3', iso(3))], context)).toBeUndefined();
  });
});
