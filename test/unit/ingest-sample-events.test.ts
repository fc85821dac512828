import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { S3Event, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { parseS3Event, parseS3NotificationBody } from '../../packages/bridge/src/ingest/s3-event.ts';

const events = path.resolve(import.meta.dirname, '../../events');
const read = <T>(name: string): T => JSON.parse(readFileSync(path.join(events, name), 'utf8')) as T;

describe('sample ingest events (events/ingest-*.json)', () => {
  it('ingest-s3-put.json is a direct S3 event of one versioned write with a form-encoded key', () => {
    const notification = parseS3Event(read<S3Event>('ingest-s3-put.json'));

    expect(notification).toMatchObject({
      kind: 'records',
      writes: [
        {
          key: 'incoming/Q1 price list+promo.csv',
          versionId: '3HL4kqtJlcpXroDTDmJ.rmSpXd3dIbrHY',
          size: 18342,
        },
      ],
    });
  });

  it('ingest-sqs.json carries one S3 notification per SQS record, as the ingest queue delivers them', () => {
    const event = read<SQSEvent>('ingest-sqs.json');

    const keys = event.Records.map((record) => {
      const notification = parseS3NotificationBody(record.body);
      return notification.kind === 'records' ? notification.writes.map((write) => write.key) : [];
    });

    expect(event.Records.every((record) => record.eventSource === 'aws:sqs')).toBe(true);
    expect(keys).toEqual([['incoming/Q1 price list+promo.csv'], ['incoming/2026/Lieferung März.zip']]);
  });

  it('ingest-sqs-test-event.json is the s3:TestEvent S3 sends when the notification is set up', () => {
    const [record] = read<SQSEvent>('ingest-sqs-test-event.json').Records;

    expect(parseS3NotificationBody(record?.body ?? '')).toMatchObject({ kind: 'test' });
  });
});
