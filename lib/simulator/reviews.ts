/**
 * Supplier reviews of published items: what a recipient sends back through a GDSN channel. A clean
 * item is APPROVED with a SYNCHRONISED confirmation; any validation problem makes it REVIEW.
 */
import type { Item, SupplierReview } from '../pds/index.ts';
import { problemsOf } from './datamodel.ts';
import { buildCatalogueItemConfirmation } from './gdsn.ts';
import type { SimulatorChannel, SimulatorState } from './state.ts';

/**
 * Records the review of one item received through `channel` at `at` (epoch ms), with its messaging asset.
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
  const primaryKey = String(item.primaryKey__);
  const problems = problemsOf(item);
  const approved = problems.length === 0;
  return state.addSupplierReview(
    {
      primaryKey,
      supplierId: channel.supplierId,
      channelId: channel.id,
      supplier: channel.supplierName,
      reviewer: channel.reviewerName,
      reviewStatus: approved ? 'APPROVED' : 'REVIEW',
      date: at,
      comment: problems.map((problem) => problem.message).join('; '),
      messagingCreatorType: 'REVIEW',
    },
    (messageNumber) =>
      buildCatalogueItemConfirmation({
        messageNumber,
        createdAt: at,
        primaryKey,
        recipientGln: channel.recipientGln,
        dataSourceGln: channel.supplierId,
        recipientDataPoolGln: channel.dataPoolGln,
        targetMarketCountryCode: channel.targetMarketCountryCode,
        problems: problems.map((problem) => ({
          message: problem.message,
          attribute: problem.path.join('.'),
        })),
      }),
  );
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
        recordReview(this.#state, channel, this.#state.items.get(key) ?? { primaryKey__: key }, at);
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
