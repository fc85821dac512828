/**
 * The port the bridge's logic publishes events through. It lives apart from its adapters (the SQS
 * one is `sqs/publisher.ts`) so that code which builds or publishes events never loads the AWS SDK.
 */
import type { CloudEvent } from './envelope.ts';

export interface EventSink {
  /**
   * Resolves once every event was accepted; otherwise rejects (the SQS adapter rejects with
   * `EventPublishError` naming the events it could not publish).
   */
  publish(events: readonly CloudEvent[]): Promise<void>;
}
