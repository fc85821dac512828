/**
 * The main lane's budget, adaptive: what an attempt on the main lane may take before it is stopped
 * and handed to the slow lane. A fixed budget has to be set for the slowest receiver a stage has, so
 * against receivers that answer in tens of milliseconds it lets a dripping or slow endpoint hold a
 * main-lane batch (and every delivery queued behind it) for seconds, once per batch in flight. Here
 * the budget follows how fast the main lane's receivers really answer: {@link BUDGET_FACTOR} times
 * the median of the recent answers, never under {@link MIN_BUDGET_MS} and never over the configured
 * cap (WEBHOOK_MAIN_LANE_MS). Before enough answers are known (a new instance), the budget is the cap.
 *
 * The budget is re-read while an attempt runs: batch-mates that answer meanwhile lower it, so the
 * first batch of a new instance does not wait the whole cap on the one endpoint that drips.
 */

/** Times the median answer an attempt may take on the main lane. */
export const BUDGET_FACTOR = 5;
/** The budget's floor (ms): below it, network jitter alone would move healthy endpoints. */
export const MIN_BUDGET_MS = 50;
/** Answers needed before the median is trusted; until then the budget is the cap. */
export const MIN_SAMPLES = 3;
/** Recent answers the median is taken from. */
const WINDOW = 64;

/** An attempt being watched: told to stop once it has run past the budget. */
interface Watched {
  readonly startedAt: number;
  readonly stop: (budgetMs: number) => void;
  timer?: ReturnType<typeof setTimeout>;
}

export class MainLaneBudget {
  /** The configured budget (WEBHOOK_MAIN_LANE_MS): the most the budget may be. */
  readonly capMs: number;
  readonly #now: () => number;
  readonly #answers: number[] = [];
  #next = 0;
  readonly #watched = new Set<Watched>();

  /** `capMs`: the configured budget, the most it may be; `now`: a monotonic clock in ms. */
  constructor(capMs: number, now: () => number = () => performance.now()) {
    this.capMs = capMs;
    this.#now = now;
  }

  /**
   * The budget now, in ms.
   *
   * @example
   * ```ts
   * const budget = new MainLaneBudget(2000);
   * budget.currentMs(); // 2000 (no answers known yet)
   * for (const ms of [20, 22, 25]) budget.answered(ms);
   * budget.currentMs(); // 110 (5 × the median, 22)
   * ```
   */
  currentMs(): number {
    if (this.#answers.length < MIN_SAMPLES) return this.capMs;
    const sorted = [...this.#answers].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)] as number;
    return Math.min(this.capMs, Math.max(MIN_BUDGET_MS, Math.round(BUDGET_FACTOR * median)));
  }

  /** An answer (any status) came after `latencyMs` on the main lane: the attempts in flight are re-timed. */
  answered(latencyMs: number): void {
    if (this.#answers.length < WINDOW) this.#answers.push(latencyMs);
    else this.#answers[this.#next] = latencyMs;
    this.#next = (this.#next + 1) % WINDOW;
    for (const watched of this.#watched) this.#arm(watched);
  }

  /**
   * Calls `stop` with the budget once an attempt started now has run past it (the budget as it is
   * then); returns the function that ends the watch when the attempt ends first.
   */
  watch(stop: (budgetMs: number) => void): () => void {
    const watched: Watched = { startedAt: this.#now(), stop };
    this.#watched.add(watched);
    this.#arm(watched);
    return () => this.#end(watched);
  }

  #arm(watched: Watched): void {
    if (watched.timer) clearTimeout(watched.timer);
    const budgetMs = this.currentMs();
    const leftMs = watched.startedAt + budgetMs - this.#now();
    if (leftMs <= 0) {
      this.#end(watched);
      watched.stop(budgetMs);
      return;
    }
    // Re-read when it fires: answers in between may have moved the budget either way.
    watched.timer = setTimeout(() => this.#arm(watched), leftMs);
  }

  #end(watched: Watched): void {
    if (watched.timer) clearTimeout(watched.timer);
    this.#watched.delete(watched);
  }
}
