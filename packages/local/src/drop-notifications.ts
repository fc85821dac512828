/**
 * S3 event notifications for the drop bucket, which the emulator does not send itself: every object
 * written to the bucket (PutObject, multipart upload, copy) becomes an `ObjectCreated` notification
 * on the ingest queue, in AWS's shape, with size and ETag from HeadObject and a growing sequencer.
 *
 * Writes are observed through the emulator's message spy. Each spy event is handled once (the wait
 * skips events already handled), in the order they happened.
 */
import { HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { MessageSpyReader, S3SpyEvent, SpyMessage } from 'fauxqs';
import {
  objectCreatedEventName,
  S3Sequencer,
  s3NotificationEvent,
  s3NotificationRecord,
} from './s3-notifications.ts';

/** One notification sent. */
export interface DropNotification {
  bucket: string;
  key: string;
  size: number;
  etag: string;
  eventName: string;
  sequencer: string;
}

export interface DropNotificationOptions {
  spy: MessageSpyReader;
  s3: S3Client;
  sqs: SQSClient;
  bucket: string;
  queueUrl: string;
  region: string;
  sequencer?: S3Sequencer;
  onNotified?: (notification: DropNotification) => void;
  /** A write that could not be announced (object gone before it was read, queue unreachable). */
  onError?: (error: unknown, key: string) => void;
}

export interface RunningDropNotifications {
  /** Stops after the notification in progress. */
  stop(): Promise<void>;
}

function isUpload(message: SpyMessage, bucket: string): message is S3SpyEvent {
  return message.service === 's3' && message.status === 'uploaded' && message.bucket === bucket;
}

/**
 * Starts announcing writes to `bucket` on `queueUrl` until `stop()`.
 *
 * @example
 * ```ts
 * const notifications = startDropNotifications({ spy: server.spy, s3, sqs, bucket: 'drops', queueUrl, region });
 * await notifications.stop();
 * ```
 */
export function startDropNotifications(options: DropNotificationOptions): RunningDropNotifications {
  const sequencer = options.sequencer ?? new S3Sequencer();
  const handled = new WeakSet<SpyMessage>();
  let stopped = false;
  let wake: () => void = () => undefined;
  const stopping = new Promise<undefined>((resolve) => {
    wake = () => resolve(undefined);
  });

  async function notify(upload: S3SpyEvent): Promise<void> {
    const head = await options.s3.send(new HeadObjectCommand({ Bucket: upload.bucket, Key: upload.key }));
    const etag = head.ETag ?? '';
    const notification: DropNotification = {
      bucket: upload.bucket,
      key: upload.key,
      size: head.ContentLength ?? 0,
      etag: etag.replace(/^"(.*)"$/, '$1'),
      eventName: objectCreatedEventName(etag),
      sequencer: sequencer.next(),
    };
    const record = s3NotificationRecord({
      ...notification,
      ...(head.VersionId ? { versionId: head.VersionId } : {}),
      region: options.region,
      eventTime: new Date(upload.timestamp),
    });
    await options.sqs.send(
      new SendMessageCommand({
        QueueUrl: options.queueUrl,
        MessageBody: JSON.stringify(s3NotificationEvent([record])),
      }),
    );
    options.onNotified?.(notification);
  }

  const loop = (async () => {
    while (!stopped) {
      const upload = await Promise.race([
        options.spy.waitForMessage(
          (message) => isUpload(message, options.bucket) && !handled.has(message),
          'uploaded',
        ) as Promise<S3SpyEvent>,
        stopping,
      ]);
      if (upload === undefined || stopped) break;
      handled.add(upload);
      try {
        await notify(upload);
      } catch (error) {
        options.onError?.(error, upload.key);
      }
    }
  })();

  return {
    async stop() {
      stopped = true;
      wake();
      await loop;
    },
  };
}
