import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IngestEventError } from '../../packages/bridge/src/ingest/errors.ts';
import {
  decodeS3Key,
  parseS3Event,
  parseS3NotificationBody,
} from '../../packages/bridge/src/ingest/s3-event.ts';
import { encodeS3EventKey, s3Event, s3Record, s3TestEvent } from '../helpers/s3-events.ts';

describe('decodeS3Key', () => {
  it('turns + into spaces and decodes percent-encoded UTF-8', () => {
    expect(decodeS3Key('incoming/Q1+report%2B%C3%84pfel.csv')).toBe('incoming/Q1 report+Äpfel.csv');
  });

  it('refuses malformed percent-encoding with an error naming the key', () => {
    expect(() => decodeS3Key('bad%E0%A4%A.csv')).toThrow(IngestEventError);
    expect(() => decodeS3Key('bad%E0%A4%A.csv')).toThrow(/bad%E0%A4%A\.csv.*not valid URL encoding/);
  });

  it('gives back any key encoded the way S3 encodes event keys', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }), (key) => {
        expect(decodeS3Key(encodeS3EventKey(key))).toBe(key);
      }),
    );
  });
});

describe('parseS3NotificationBody', () => {
  it('reads the object writes of an S3 notification with decoded keys', () => {
    // prepare
    const body = JSON.stringify(
      s3Event([
        s3Record({
          bucket: 'drops',
          key: 'a/b/c/Q1 items+more ü.csv',
          size: 42,
          etag: 'abc',
          sequencer: '0A1',
        }),
        s3Record({ bucket: 'drops', key: 'x.zip', size: 7, versionId: 'v1', etag: 'def', sequencer: '0A2' }),
      ]),
    );

    // act
    const notification = parseS3NotificationBody(body);

    // assess
    expect(notification).toEqual({
      kind: 'records',
      ignored: [],
      writes: [
        expect.objectContaining({
          bucket: 'drops',
          key: 'a/b/c/Q1 items+more ü.csv',
          size: 42,
          etag: 'abc',
          sequencer: '0A1',
          eventName: 'ObjectCreated:Put',
        }),
        expect.objectContaining({ bucket: 'drops', key: 'x.zip', versionId: 'v1', etag: 'def', size: 7 }),
      ],
    });
  });

  it('recognises the s3:TestEvent as nothing to ingest', () => {
    expect(parseS3NotificationBody(JSON.stringify(s3TestEvent('drops')))).toEqual({
      kind: 'test',
      bucket: 'drops',
    });
  });

  it('unwraps an S3 notification delivered through SNS', () => {
    const inner = s3Event([s3Record({ bucket: 'drops', key: 'in/items.csv', size: 3 })]);
    const body = JSON.stringify({ Type: 'Notification', MessageId: 'm-1', Message: JSON.stringify(inner) });

    const notification = parseS3NotificationBody(body);

    expect(notification.kind === 'records' && notification.writes.map((w) => w.key)).toEqual([
      'in/items.csv',
    ]);
  });

  it('lists records of other event types as ignored instead of ingesting them', () => {
    const body = JSON.stringify(
      s3Event([s3Record({ bucket: 'drops', key: 'gone.csv', size: 0, eventName: 'ObjectRemoved:Delete' })]),
    );

    expect(parseS3NotificationBody(body)).toEqual({
      kind: 'records',
      writes: [],
      ignored: [
        {
          eventName: 'ObjectRemoved:Delete',
          bucket: 'drops',
          key: 'gone.csv',
          reason: 'not an ObjectCreated event',
        },
      ],
    });
  });

  it('identifies a write in the unversioned slot ("null" version) by its ETag', () => {
    const body = JSON.stringify(
      s3Event([s3Record({ bucket: 'b1', key: 'k.csv', size: 1, versionId: 'null', etag: 'e1' })]),
    );

    const notification = parseS3NotificationBody(body);

    expect(notification.kind === 'records' && notification.writes[0]).not.toHaveProperty('versionId');
  });

  it.each([
    ['not JSON', 'hello', /not JSON/],
    ['JSON that is no object', '[1,2]', /instead of an object/],
    ['an object without Records', '{"foo":1}', /no Records array \(keys: foo\)/],
    [
      'a record from another service',
      '{"Records":[{"eventSource":"aws:sqs"}]}',
      /Records\[0\] is not an S3 event record/,
    ],
  ])('refuses %s with a message saying what is expected', (_name, body, problem) => {
    expect(() => parseS3NotificationBody(body)).toThrow(IngestEventError);
    expect(() => parseS3NotificationBody(body)).toThrow(problem);
    expect(() => parseS3NotificationBody(body)).toThrow(/Expected an S3 event/);
  });

  it('refuses a record that neither a version id nor an ETag identifies', () => {
    const record = s3Record({ bucket: 'b1', key: 'k.csv', size: 1 });
    const { eTag: _etag, ...object } = record.s3.object;
    const event = { Records: [{ ...record, s3: { ...record.s3, object } }] };

    expect(() => parseS3Event(event)).toThrow(/neither s3\.object\.versionId nor s3\.object\.eTag/);
  });
});
