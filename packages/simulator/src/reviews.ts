/**
 * Supplier reviews of published items: what a recipient sends back through a GDSN channel, as the
 * channel's `recipient` behaviour says (./state.ts, RECIPIENT_BEHAVIOURS). By default a clean item is
 * APPROVED with a SYNCHRONISED confirmation and any validation problem makes it REVIEW.
 */
import type { Item, SupplierReview } from '@pds-bridge/bridge/pds';
import { problemsOf } from './datamodel.ts';
import {
  buildCatalogueItemConfirmation,
  buildCatalogueItemConfirmation28,
  buildDataPoolRefusal,
  buildResendRequest,
  type ConfirmationProblem,
  gtin14Of,
  refusalText,
} from './gdsn.ts';
import type { SimulatorChannel, SimulatorState } from './state.ts';

/** What a review says: its status, its comment and the confirmation(s) its message holds. */
interface Answer {
  reviewStatus: string;
  comment: string;
  /** Offset of the message's creation time from the answer's time, ms (out-of-order answers). */
  offsetMs?: number;
  xml: (messageNumber: number, createdAt: number) => string;
}

function confirmationOf(
  channel: SimulatorChannel,
  primaryKey: string,
  problems: ConfirmationProblem[],
  state?: 'RECEIVED' | 'REVIEW' | 'SYNCHRONISED' | 'REJECTED',
) {
  return (messageNumber: number, createdAt: number) =>
    buildCatalogueItemConfirmation({
      messageNumber,
      createdAt,
      primaryKey,
      recipientGln: channel.recipientGln,
      dataSourceGln: channel.supplierId,
      recipientDataPoolGln: channel.dataPoolGln,
      targetMarketCountryCode: channel.targetMarketCountryCode,
      problems,
      ...(state ? { state } : {}),
    });
}

/** The recipient's request in `review` mode: something it wants that the datamodel does not demand. */
const RECIPIENT_DEMAND: ConfirmationProblem = {
  message: 'The recipient requires the net content per consumer unit; declare netContent and publish again.',
  attribute: 'netContent',
};

/** What the channel's recipient answers about `item` (nothing for a silent one). */
function answersOf(state: SimulatorState, channel: SimulatorChannel, item: Item): Answer[] {
  const primaryKey = String(item.primaryKey__);
  const behaviour = channel.recipient ?? 'synchronise';
  switch (behaviour) {
    case 'silent':
      return [];
    case 'reject':
      return [
        {
          reviewStatus: 'REJECTED',
          comment: 'The recipient does not list this item.',
          xml: confirmationOf(
            channel,
            primaryKey,
            [{ message: 'The recipient does not list this item.' }],
            'REJECTED',
          ),
        },
      ];
    case 'gdsn-2.8':
      return [
        {
          reviewStatus: 'APPROVED',
          comment: '',
          xml: (messageNumber, createdAt) =>
            buildCatalogueItemConfirmation28({
              messageNumber,
              createdAt,
              primaryKey,
              recipientGln: channel.recipientGln,
              dataSourceGln: channel.supplierId,
              targetMarketCountryCode: channel.targetMarketCountryCode,
              state: 'ACCEPTED',
            }),
        },
      ];
    case 'out-of-order':
      // The later answer first: a reader that trusts arrival order would end at RECEIVED.
      return [
        {
          reviewStatus: 'APPROVED',
          comment: '',
          xml: confirmationOf(channel, primaryKey, [], 'SYNCHRONISED'),
        },
        {
          reviewStatus: 'RECEIVED',
          comment: '',
          offsetMs: -1000,
          xml: confirmationOf(channel, primaryKey, [], 'RECEIVED'),
        },
      ];
    case 'data-pool-refuse':
      return [
        {
          reviewStatus: 'REJECTED',
          comment: refusalText(gtin14Of(primaryKey), channel.supplierId, channel.targetMarketCountryCode),
          xml: (messageNumber, createdAt) =>
            buildDataPoolRefusal({
              messageNumber,
              createdAt,
              primaryKey,
              senderGln: channel.dataPoolGln,
              dataSourceGln: channel.supplierId,
              targetMarketCountryCode: channel.targetMarketCountryCode,
            }),
        },
      ];
    case 'resend-request': {
      const askedBefore = (state.supplierReviews.get(primaryKey) ?? []).some(
        (review) => review.channelId === channel.id,
      );
      if (askedBefore) {
        return [{ reviewStatus: 'APPROVED', comment: '', xml: confirmationOf(channel, primaryKey, []) }];
      }
      return [
        {
          reviewStatus: 'RECEIVED',
          comment: 'The recipient asks for the item to be sent again.',
          xml: (messageNumber, createdAt) =>
            buildResendRequest({
              messageNumber,
              createdAt,
              primaryKey,
              senderGln: channel.recipientGln,
              dataSourceGln: channel.supplierId,
              targetMarketCountryCode: channel.targetMarketCountryCode,
            }),
        },
      ];
    }
    case 'review': {
      const answeredBefore = (state.supplierReviews.get(primaryKey) ?? []).some(
        (review) => review.channelId === channel.id,
      );
      return answeredBefore
        ? [{ reviewStatus: 'APPROVED', comment: '', xml: confirmationOf(channel, primaryKey, []) }]
        : [
            {
              reviewStatus: 'REVIEW',
              comment: RECIPIENT_DEMAND.message,
              xml: confirmationOf(channel, primaryKey, [RECIPIENT_DEMAND]),
            },
          ];
    }
    case 'synchronise': {
      const problems = problemsOf(item).map((problem) => ({
        message: problem.message,
        attribute: problem.path.join('.'),
      }));
      return [
        {
          reviewStatus: problems.length === 0 ? 'APPROVED' : 'REVIEW',
          comment: problems.map((problem) => problem.message).join('; '),
          xml: confirmationOf(channel, primaryKey, problems),
        },
      ];
    }
  }
}

/**
 * Records what the channel's recipient answers about one item at `at` (epoch ms): its review(s),
 * each with its messaging asset, as the channel's `recipient` behaviour says (none when silent).
 *
 * @example
 * recordReviews(state, state.channels[0], state.items.get(key), Date.now())[0]?.reviewStatus; // 'APPROVED' or 'REVIEW'
 */
export function recordReviews(
  state: SimulatorState,
  channel: SimulatorChannel,
  item: Item,
  at: number,
): SupplierReview[] {
  const primaryKey = String(item.primaryKey__);
  return answersOf(state, channel, item).map((answer) => {
    const createdAt = at + (answer.offsetMs ?? 0);
    return state.addSupplierReview(
      {
        primaryKey,
        supplierId: channel.supplierId,
        channelId: channel.id,
        supplier: channel.supplierName,
        reviewer: channel.reviewerName,
        reviewStatus: answer.reviewStatus,
        date: createdAt,
        comment: answer.comment,
        messagingCreatorType: 'REVIEW',
      },
      (messageNumber) => answer.xml(messageNumber, createdAt),
    );
  });
}

/**
 * Records the review of one item received through a `synchronise` channel (the demo backlog).
 *
 * @example
 * recordReview(state, state.channels[0], state.items.get(key), Date.now()).reviewStatus; // 'APPROVED' or 'REVIEW'
 */
export function recordReview(
  state: SimulatorState,
  channel: SimulatorChannel,
  item: Item,
  at: number,
): SupplierReview {
  const [review] = recordReviews(state, { ...channel, recipient: 'synchronise' }, item, at);
  return review as SupplierReview;
}

/**
 * Produces the reviews of COMMUNICATION_CHANNEL publications after a delay, as a recipient would.
 * Timers are unref'd (they never keep a process alive) and cancelled by `close()`.
 */
export class ReviewScheduler {
  readonly #state: SimulatorState;
  readonly #delayMs: number;
  readonly #timers = new Set<NodeJS.Timeout>();

  constructor(state: SimulatorState, delayMs: number) {
    this.#state = state;
    this.#delayMs = delayMs;
  }

  /** After the delay, records one review per key, for the items as they are at that moment. */
  schedule(channel: SimulatorChannel, primaryKeys: readonly string[]): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      const at = Date.now();
      for (const key of primaryKeys) {
        recordReviews(this.#state, channel, this.#state.items.get(key) ?? { primaryKey__: key }, at);
      }
    }, this.#delayMs);
    timer.unref();
    this.#timers.add(timer);
  }

  /** Cancels every pending review. */
  close(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }
}
