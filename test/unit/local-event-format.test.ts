import { describe, expect, it } from 'vitest';
import { exampleEvents } from '../../packages/bridge/src/events/examples.ts';
import {
  formatEventJson,
  formatEventLine,
  parseEventBody,
  type ReceivedEvent,
} from '../../packages/local/src/event-format.ts';

function received(event: object, queue = 'pds-bridge-local-events'): ReceivedEvent {
  const body = JSON.stringify(event);
  return { queue, messageId: 'm-1', body, event: parseEventBody(body) };
}

const TIME = '2026-11-20T09:15:00.000Z';

describe('formatEventLine', () => {
  it('shows control characters of the event and of a body that is not one as escapes, on one line', () => {
    // prepare: a review comment and an S3 key carrying terminal controls and a line break
    const event = received({
      type: 'pds.ingest.failed',
      time: TIME,
      subject: 's3://pds-drop/in/\u001b[2Ja.csv',
      data: { code: 'pds-rejected', reason: 'bad\r\n09:15:00Z  pds.ingest.completed  forged\u0007' },
    });
    const notEvent = { queue: 'q', messageId: 'm-2', body: 'x\u001b]0;title\u0007', event: undefined };

    // act
    const lines = [formatEventLine(event), formatEventLine(notEvent)];

    // assess
    for (const line of lines) expect([...line].filter((char) => char < ' ' || char === '\u007f')).toEqual([]);
    expect(lines[0]).toContain('in/\\x1b[2Ja.csv');
    // Line breaks in a detail were already folded into one line; the bell is shown as an escape.
    expect(lines[0]).toContain('bad 09:15:00Z pds.ingest.completed forged\\x07');
    expect(lines[1]).toContain('x\\x1b]0;title\\x07');
    // The JSON view is unchanged: JSON escapes controls itself.
    expect(formatEventJson(event)).toBe(JSON.stringify(event.event));
  });

  it('shows time, type, subject and what was imported for pds.ingest.completed', () => {
    const line = formatEventLine(
      received({
        type: 'pds.ingest.completed',
        time: TIME,
        subject: 's3://pds-drop/incoming/items.zip',
        data: {
          bucket: 'pds-drop',
          key: 'incoming/items.zip',
          size: 18342,
          gatheringKey: 'c9a1e7d2-5b0f-4f53-9e43-2f6d8e1b7a10',
          entriesImported: [
            { path: 'items/a.csv', assetKey: 'k1' },
            { path: 'items/b.json', assetKey: 'k2' },
          ],
        },
      }),
    );

    expect(line).toBe(
      '09:15:00Z  pds.ingest.completed          s3://pds-drop/incoming/items.zip  import accepted for 2 entries (items/a.csv, items/b.json), items created not reported · 18342 bytes · gathering c9a1e7d2',
    );
  });

  it('lists at most three imported paths and counts the rest', () => {
    const entriesImported = ['a', 'b', 'c', 'd', 'e'].map((name) => ({
      path: `${name}.csv`,
      assetKey: name,
    }));

    const line = formatEventLine(
      received({
        type: 'pds.ingest.completed',
        time: TIME,
        subject: 's3://d/x.zip',
        data: { entriesImported },
      }),
    );

    expect(line).toContain(
      'import accepted for 5 entries (a.csv, b.csv, c.csv, +2 more), items created not reported',
    );
  });

  it('gives the code, the reason, the PDS status and whether a retry may help for failures', () => {
    const line = formatEventLine(
      received({
        type: 'pds.ingest.failed',
        time: TIME,
        subject: 's3://pds-drop/items.csv',
        data: {
          code: 'unauthorized',
          reason: 'PDS answered 401; check PDS_USERNAME',
          pdsStatus: 401,
          retryable: false,
        },
      }),
    );

    expect(line).toMatch(
      /pds\.ingest\.failed\s+s3:\/\/pds-drop\/items\.csv {2}failed \[unauthorized\]: PDS answered 401; check PDS_USERNAME · PDS 401$/,
    );
  });

  it('shows a failure without a code (an event from an older bridge) without brackets', () => {
    const line = formatEventLine(
      received({
        type: 'pds.publication.failed',
        time: TIME,
        subject: 'publication/1',
        data: { reason: 'PDS answered 503', retryable: true },
      }),
    );

    expect(line).toMatch(/publication\/1 {2}failed \(retryable\): PDS answered 503$/);
  });

  it('shows the channel, the transition and the corrective actions of a confirmation change', () => {
    const [event] = exampleEvents()['pds.confirmation.changed'];

    const line = formatEventLine(received(event as object));

    expect(line).toBe(
      '09:15:00Z  pds.confirmation.changed      item/00614141123469  gdsn-main: AWAITING → REVIEW (1 corrective action)',
    );
  });

  it('shows the review status, reviewer, channel, asset and confirmation state of a supplier review', () => {
    const line = formatEventLine(
      received({
        type: 'pds.supplier-review.received',
        time: TIME,
        subject: 'item/00614141123469',
        data: {
          review: {
            reviewStatus: 'REVIEW',
            reviewer: 'Data pool',
            channelId: 'gdsn-main',
            comment: 'Image missing',
          },
          messagingAssetId: 1044,
          cic: [{ state: 'REVIEW', statuses: [{ code: 'CIC999' }] }],
        },
      }),
    );

    expect(line).toContain(
      'item/00614141123469  REVIEW by Data pool · channel gdsn-main · asset 1044 · REVIEW (CIC999) · Image missing',
    );
  });

  it('names the asset, its item and states of a messaging asset, or its parse error', () => {
    const parsed = formatEventLine(
      received({
        type: 'pds.messaging-asset.received',
        time: TIME,
        subject: 'messaging-asset/1042',
        data: {
          messagingAssetId: 1042,
          primaryKey: '00614141123452',
          cic: [{ state: 'SYNCHRONISED', statuses: [] }],
        },
      }),
    );
    const broken = formatEventLine(
      received({
        type: 'pds.messaging-asset.received',
        time: TIME,
        subject: 'messaging-asset/1043',
        data: { messagingAssetId: 1043, parseError: { message: 'Malformed XML at line 3' } },
      }),
    );

    expect(parsed).toContain('asset 1042 · item 00614141123452 · SYNCHRONISED');
    expect(broken).toContain('asset 1043 · parse error: Malformed XML at line 3');
  });

  it('says why a messaging asset passed after failing on consecutive runs came without its message', () => {
    // prepare
    const event = received({
      type: 'pds.messaging-asset.received',
      time: TIME,
      subject: 'messaging-asset/1045',
      data: { messagingAssetId: 1045, messageError: { message: 'PDS answered 500', failedRuns: 5 } },
    });

    // act
    const line = formatEventLine(event);

    // assess
    expect(line).toContain('asset 1045 · message not fetched: PDS answered 500');
  });

  it('shows items, destinations and selection of a completed publication', () => {
    const line = formatEventLine(
      received({
        type: 'pds.publication.completed',
        time: TIME,
        subject: 'publication/7d3f',
        data: {
          numberOfItems: 2,
          selectionId: 'sel-000318',
          destinations: [{ destinationType: 'COMMUNICATION_CHANNEL', destinationId: 'gdsn-main' }],
        },
      }),
    );

    expect(line).toContain('publication/7d3f  2 items → gdsn-main · selection sel-000318');
  });

  it('prints every documented example on one line with its type and subject', () => {
    for (const example of Object.values(exampleEvents()).flat()) {
      const line = formatEventLine(received(example));

      expect(line).not.toContain('\n');
      expect(line).toContain(String(example.type));
      expect(line).toContain(String(example.subject));
    }
  });

  it('prints a body that is not an event as a raw message, on one line', () => {
    const line = formatEventLine({ queue: 'q1', messageId: 'm', body: 'hello\nworld' });

    expect(line).toBe('--:--:--Z  (not an event)                q1  hello world');
  });

  it('clips very long details', () => {
    const line = formatEventLine(
      received({ type: 'pds.ingest.failed', time: TIME, subject: 's', data: { reason: 'x'.repeat(500) } }),
    );

    expect(line.length).toBeLessThan(250);
    expect(line.endsWith('…')).toBe(true);
  });
});

describe('formatEventJson', () => {
  it('prints the CloudEvent itself as one line of JSON', () => {
    const event = {
      specversion: '1.0',
      type: 'pds.publication.failed',
      subject: 'publication/1',
      data: { reason: 'a\nb' },
    };

    const line = formatEventJson(received(event));

    expect(line).not.toContain('\n');
    expect(JSON.parse(line)).toEqual(event);
  });

  it('wraps a body that is not an event with its queue and message id', () => {
    const line = formatEventJson({ queue: 'q1', messageId: 'm-9', body: 'not json' });

    expect(JSON.parse(line)).toEqual({ queue: 'q1', messageId: 'm-9', body: 'not json' });
  });
});

describe('parseEventBody', () => {
  it('accepts JSON objects with a type and nothing else', () => {
    expect(parseEventBody('{"type":"pds.ingest.completed"}')).toEqual({ type: 'pds.ingest.completed' });
    expect(parseEventBody('[1,2]')).toBeUndefined();
    expect(parseEventBody('{"id":"x"}')).toBeUndefined();
    expect(parseEventBody('<xml/>')).toBeUndefined();
  });
});
