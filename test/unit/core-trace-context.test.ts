import { describe, expect, it } from 'vitest';
import {
  continueTrace,
  currentTraceparent,
  newTraceparent,
  parseTraceparent,
  traceparentFromXRay,
  withTraceparent,
} from '../../packages/bridge/src/core/index.ts';

const W3C_EXAMPLE = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('traceparentFromXRay', () => {
  it('turns an X-Ray header into the traceparent of the same trace and parent', () => {
    // act
    const sampled = traceparentFromXRay(
      'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1',
    );

    // assess
    expect(sampled).toBe('00-5759e988bd862e3fe1be46a994272793-53995c3f42cd8ad8-01');
  });

  it('clears the sampled flag unless the header says Sampled=1', () => {
    // act
    const notSampled = traceparentFromXRay(
      'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=0',
    );
    const undecided = traceparentFromXRay(
      'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=?',
    );
    const missing = traceparentFromXRay('Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8');

    // assess
    expect(notSampled).toBe('00-5759e988bd862e3fe1be46a994272793-53995c3f42cd8ad8-00');
    expect(undecided).toBe('00-5759e988bd862e3fe1be46a994272793-53995c3f42cd8ad8-00');
    expect(missing).toBe('00-5759e988bd862e3fe1be46a994272793-53995c3f42cd8ad8-00');
  });

  it('accepts the fields in any order, upper-case hex and extra fields such as Lineage', () => {
    // act
    const traceparent = traceparentFromXRay(
      'Sampled=1;Lineage=a87bd80c:1|68fd508a:5;Parent=53995C3F42CD8AD8;Root=1-5759E988-BD862E3FE1BE46A994272793',
    );

    // assess
    expect(traceparent).toBe('00-5759e988bd862e3fe1be46a994272793-53995c3f42cd8ad8-01');
  });

  it.each([
    ['nothing', undefined],
    ['an empty header', ''],
    ['a root without parent (Lambda before the invocation)', 'Root=1-5759e988-bd862e3fe1be46a994272793'],
    ['a parent without root', 'Parent=53995c3f42cd8ad8;Sampled=1'],
    ['a root of another version', 'Root=2-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8'],
    ['a short root', 'Root=1-5759e988-bd862e3fe1be46a99427279;Parent=53995c3f42cd8ad8'],
    ['a parent that is not hex', 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8adz'],
    ['an all-zero parent', 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=0000000000000000'],
    ['a traceparent', W3C_EXAMPLE],
  ])('gives no traceparent for %s', (_name, header) => {
    // act / assess
    expect(traceparentFromXRay(header)).toBeUndefined();
  });
});

describe('parseTraceparent', () => {
  it('reads the ids and the sampled flag of a valid value', () => {
    // act / assess
    expect(parseTraceparent(W3C_EXAMPLE)).toEqual({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      parentId: '00f067aa0ba902b7',
      sampled: true,
    });
    expect(parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00')?.sampled).toBe(false);
  });

  it.each([
    ['upper case', '00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01'],
    ['an all-zero trace id', '00-00000000000000000000000000000000-00f067aa0ba902b7-01'],
    ['an all-zero parent id', '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01'],
    ['another version', '01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ['a missing part', '00-4bf92f3577b34da6a3ce929d0e0e4736-01'],
    ['an X-Ray header', 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1'],
  ])('refuses %s', (_name, value) => {
    // act / assess
    expect(parseTraceparent(value)).toBeUndefined();
  });
});

describe('the trace of the work in progress', () => {
  it('is the one the unit of work runs in, across awaits', async () => {
    // act
    const seen = await withTraceparent(W3C_EXAMPLE, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return currentTraceparent();
    });

    // assess
    expect(seen).toBe(W3C_EXAMPLE);
  });

  it('is fresh, valid and not sampled for a unit of work without one', () => {
    // act
    const first = withTraceparent(undefined, () => currentTraceparent());
    const second = withTraceparent('not a traceparent', () => currentTraceparent());

    // assess
    expect(parseTraceparent(first)?.sampled).toBe(false);
    expect(parseTraceparent(second)).toBeDefined();
    expect(first).not.toBe(second);
    expect(parseTraceparent(newTraceparent())).toBeDefined();
  });

  it('makes a fresh, valid and distinct traceparent on every call, across blocks of random bytes', () => {
    // act: 24 random bytes a call, 4096 a block: 1000 calls draw from six blocks
    const made = Array.from({ length: 1000 }, () => newTraceparent());

    // assess
    expect(made.every((value) => parseTraceparent(value)?.sampled === false)).toBe(true);
    expect(new Set(made.map((value) => parseTraceparent(value)?.traceId)).size).toBe(made.length);
    expect(new Set(made.map((value) => parseTraceparent(value)?.parentId)).size).toBe(made.length);
  });

  it('continues the trace a queue message carries, else its X-Ray header, else the current one', () => {
    // prepare
    const queued = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const xray = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1';

    // act
    const seen = withTraceparent(W3C_EXAMPLE, () => [
      continueTrace({ messageAttributes: { traceparent: { stringValue: queued } } }, currentTraceparent),
      continueTrace({ attributes: { AWSTraceHeader: xray } }, currentTraceparent),
      continueTrace(
        {
          messageAttributes: { traceparent: { stringValue: 'garbage' } },
          attributes: { AWSTraceHeader: xray },
        },
        currentTraceparent,
      ),
      continueTrace({ messageAttributes: {} }, currentTraceparent),
    ]);

    // assess
    expect(seen).toEqual([
      queued,
      '00-5759e988bd862e3fe1be46a994272793-53995c3f42cd8ad8-01',
      '00-5759e988bd862e3fe1be46a994272793-53995c3f42cd8ad8-01',
      W3C_EXAMPLE,
    ]);
  });
});
