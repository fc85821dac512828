import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseS3NotificationBody } from '../../packages/bridge/src/ingest/s3-event.ts';
import {
  encodeS3EventKey,
  objectCreatedEventName,
  S3Sequencer,
  s3NotificationEvent,
  s3NotificationRecord,
} from '../../packages/local/src/s3-notifications.ts';

describe('encodeS3EventKey', () => {
  it('writes spaces as +, a literal + as %2B and non-ASCII as UTF-8 percent-escapes, keeping slashes', () => {
    expect(encodeS3EventKey('incoming/Q1 report+Äpfel.csv')).toBe('incoming/Q1+report%2B%C3%84pfel.csv');
  });

  it("escapes the characters encodeURIComponent leaves alone (!'()*~) as S3 does", () => {
    expect(encodeS3EventKey("a!b'c(d)e*f~g.csv")).toBe('a%21b%27c%28d%29e%2Af%7Eg.csv');
  });

  it('leaves unreserved characters and slashes as they are', () => {
    expect(encodeS3EventKey('in/2026-01/items_v1.2.csv')).toBe('in/2026-01/items_v1.2.csv');
  });
});

describe('s3NotificationRecord', () => {
  it('builds a record the ingest function reads back to the same write', () => {
    // prepare
    const record = s3NotificationRecord({
      bucket: 'pds-bridge-local-drop',
      key: 'incoming/Q1 items+Ä.csv',
      size: 55,
      etag: '"9b2cf535f27731c974343645a3985328"',
      sequencer: '0001A2079028D60000',
      region: 'eu-central-1',
    });

    // act
    const notification = parseS3NotificationBody(JSON.stringify(s3NotificationEvent([record])));

    // assess
    expect(record.s3.object.key).toBe('incoming/Q1+items%2B%C3%84.csv');
    expect(record.s3.object.eTag).toBe('9b2cf535f27731c974343645a3985328');
    expect(record).toMatchObject({
      eventVersion: '2.1',
      eventSource: 'aws:s3',
      awsRegion: 'eu-central-1',
      eventName: 'ObjectCreated:Put',
      s3: { bucket: { name: 'pds-bridge-local-drop', arn: 'arn:aws:s3:::pds-bridge-local-drop' } },
    });
    expect(notification).toEqual({
      kind: 'records',
      ignored: [],
      writes: [
        expect.objectContaining({
          bucket: 'pds-bridge-local-drop',
          key: 'incoming/Q1 items+Ä.csv',
          size: 55,
          etag: '9b2cf535f27731c974343645a3985328',
          sequencer: '0001A2079028D60000',
        }),
      ],
    });
  });

  it('round-trips any key through the ingest function’s decoding', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }), (key) => {
        const record = s3NotificationRecord({ bucket: 'b1', key, size: 1, etag: 'e', sequencer: '01' });
        const notification = parseS3NotificationBody(JSON.stringify(s3NotificationEvent([record])));
        expect(notification.kind === 'records' && notification.writes[0]?.key).toBe(key);
      }),
    );
  });
});

describe('objectCreatedEventName', () => {
  it('names multipart uploads by their part-count ETag and everything else a Put', () => {
    expect(objectCreatedEventName('"3858f62230ac3c915f300c664312c11f-3"')).toBe(
      'ObjectCreated:CompleteMultipartUpload',
    );
    expect(objectCreatedEventName('3858f62230ac3c915f300c664312c11f-12')).toBe(
      'ObjectCreated:CompleteMultipartUpload',
    );
    expect(objectCreatedEventName('"3858f62230ac3c915f300c664312c11f"')).toBe('ObjectCreated:Put');
  });
});

describe('S3Sequencer', () => {
  it('hands out fixed-width hex that grows with every call, even within one millisecond', () => {
    // prepare
    const sequencer = new S3Sequencer(() => 1_795_165_200_000);

    // act
    const values = Array.from({ length: 5 }, () => sequencer.next());

    // assess
    expect(values.every((value) => /^[0-9A-F]{18}$/.test(value))).toBe(true);
    expect([...values].sort()).toEqual(values);
    expect(new Set(values).size).toBe(5);
  });

  it('keeps growing across a restart because it starts from the clock', () => {
    // prepare
    let now = 1_795_165_200_000;
    const before = new S3Sequencer(() => now);
    const last = Array.from({ length: 1000 }, () => before.next()).at(-1) ?? '';
    now += 1;

    // act
    const afterRestart = new S3Sequencer(() => now).next();

    // assess
    expect(afterRestart > last).toBe(true);
  });
});
