/**
 * The webhook delivery flow, written against its ports (state store, delivery queue):
 *
 * - {@link WebhookDelivery.dispatch}: an event offered to webhooks is kept (for replay) and becomes
 *   one task per enabled endpoint whose filters match; a matching disabled endpoint gets an
 *   `undelivered` record, so nothing is lost that a replay cannot bring back.
 * - {@link WebhookDelivery.deliver}: one task is one signed POST. 2xx: delivered. 410: the endpoint
 *   is disabled. Anything else: retried on the schedule of ./schedule.ts (Retry-After honoured), the
 *   endpoint's breaker counts the failure, and an endpoint failing longer than `disableAfterMs` is
 *   disabled. Tasks of an endpoint whose breaker is open wait without spending an attempt.
 * - Two lanes (with a `slowQueue`): the main lane attempts only healthy endpoints (no failure since
 *   their last success); the tasks of an endpoint that is not healthy — dispatched, retried, waiting
 *   for its breaker, or found on the main lane after it began to fail — go to the slow lane, so a
 *   slow or dead endpoint's timeouts hold only slow-lane batches. Once it succeeds again, its new
 *   tasks take the main lane.
 * - {@link WebhookDelivery.replay}: events by id or time range (optionally only those not
 *   delivered) queued again for one endpoint, with their original ids.
 *
 * Ordering: none is guaranteed, not even per subject; retries and replays may arrive after later
 * events. Receivers order by the CloudEvent `time` and deduplicate by `webhook-id` (the event id).
 */

import type { Log } from '../core/index.ts';
import { silentLog } from '../core/index.ts';
import type { CloudEvent } from '../events/index.ts';
import { getDelivery, keepEvent, keptEvent, recordDelivery } from './deliveries.ts';
import type { EndpointDisabled, TaskOutcome, WebhookDeliveryOptions } from './delivery-options.ts';
import { type EndpointRecord, EndpointRegistry, endpointMatches, liveSecrets } from './endpoints.ts';
import { MainLaneBudget } from './lane-budget.ts';
import { type DeliveryLane, LaterTasks, unhealthy } from './lanes.ts';
import { DEFAULT_ATTEMPT_TIMEOUT_MS, type PostResult, postWebhook } from './post.ts';
import type { DeliveryQueue, DeliveryTask } from './queue.ts';
import { type ReplayRequest, type ReplayResult, replayEvents } from './replay.ts';
import { BREAKER_THRESHOLD, breakerOpenMs, parseRetryAfter, retryDelayMs } from './schedule.ts';
import { isLive, WebhookSecrets } from './secrets.ts';
import { webhookHeaders } from './signing.ts';

export type { EndpointDisabled, TaskOutcome, WebhookDeliveryOptions } from './delivery-options.ts';

export class WebhookDelivery {
  readonly registry: EndpointRegistry;
  /** The endpoints' secret material and the signing key (./secrets.ts). */
  readonly secrets: WebhookSecrets;
  readonly #o: WebhookDeliveryOptions;
  readonly #now: () => Date;
  readonly #log: Log;
  #signingKey: Promise<string | undefined> | undefined;
  /** The main lane's budget, adapted to this instance's recent main-lane answers. */
  readonly #budget: MainLaneBudget;

  constructor(options: WebhookDeliveryOptions) {
    this.#o = options;
    this.#now = options.now ?? (() => new Date());
    this.#log = options.log ?? silentLog;
    this.secrets = new WebhookSecrets(options.secrets, options.store);
    this.#budget = new MainLaneBudget(options.mainLaneBudgetMs ?? DEFAULT_MAIN_LANE_BUDGET_MS);
    this.registry = new EndpointRegistry(options.store, {
      policy: options.policy,
      secrets: this.secrets,
      knownTypes: options.knownTypes,
      now: this.#now,
    });
  }

  /**
   * Keeps each event and queues one task per matching enabled endpoint; returns the count of tasks.
   *
   * @example
   * ```ts
   * await delivery.dispatch([event]); // 2 (two endpoints take pds.ingest.completed)
   * ```
   */
  async dispatch(events: readonly CloudEvent[]): Promise<number> {
    if (events.length === 0) return 0;
    const endpoints = await this.registry.list();
    const now = this.#now().getTime();
    const later = new LaterTasks();
    let count = 0;
    for (const event of events) {
      await keepEvent(this.#o.store, event);
      for (const endpoint of endpoints) {
        if (!endpointMatches(endpoint, event)) continue;
        if (endpoint.status === 'disabled') {
          await this.#undelivered(endpoint.id, event, 'the endpoint was disabled');
          continue;
        }
        const task: DeliveryTask = {
          kind: 'deliver',
          endpointId: endpoint.id,
          eventId: event.id,
          attempt: 1,
          queuedAt: new Date(now).toISOString(),
        };
        // An endpoint that is not healthy: the task takes the slow lane; with its breaker open it is
        // queued to wait for it at once, so it takes no batch slot while the endpoint is known to fail.
        const lane = unhealthy(endpoint) ? 'slow' : 'main';
        const openUntil = endpoint.breakerOpenUntil ? Date.parse(endpoint.breakerOpenUntil) : 0;
        if (openUntil > now)
          later.add({ ...task, notBefore: endpoint.breakerOpenUntil }, openUntil - now, lane);
        else later.add(task, 0, lane);
        count++;
      }
    }
    await later.flush(this.#lanes());
    return count;
  }

  /**
   * Carries out the tasks of one batch from `lane` together. On the main lane (with a slow queue) a
   * task of an endpoint that is not healthy is moved to the slow lane without an attempt, so the main
   * lane's batches never wait on a failing endpoint. Each endpoint is read once; an endpoint that is
   * failing (its last attempt failed) gets at most one attempt per batch — its other tasks wait
   * {@link FAILING_ENDPOINT_WAIT_MS} without spending an attempt, so a dead endpoint's timeouts hold
   * one record, not many; and every task queued again (retries, waits) is sent in one request per
   * delay instead of one per task. One settled result per task, in order: rejected only for the
   * store's or the queue's failures (the record is then failed back to SQS).
   *
   * @example
   * ```ts
   * const results = await delivery.deliverBatch(tasks, 'main'); // [{ status: 'fulfilled', value: 'delivered' }, …]
   * ```
   */
  async deliverBatch(
    tasks: readonly DeliveryTask[],
    lane: DeliveryLane = 'main',
    bounds: BatchBounds = {},
  ): Promise<PromiseSettledResult<TaskOutcome>[]> {
    const ids = [...new Set(tasks.map((task) => task.endpointId))];
    const read = await Promise.allSettled(ids.map((id) => this.registry.get(id)));
    const endpoints = new Map(
      ids.map((id, n) => [id, read[n] as PromiseSettledResult<EndpointRecord | undefined>]),
    );
    const later = new LaterTasks();
    const probing = new Set<string>();
    const settled = await Promise.allSettled(
      tasks.map(async (task) => {
        const known = endpoints.get(task.endpointId) as PromiseSettledResult<EndpointRecord | undefined>;
        if (known.status === 'rejected') throw known.reason;
        const endpoint = known.value;
        if (lane === 'main' && this.#o.slowQueue && endpoint && unhealthy(endpoint)) {
          later.add(task, this.#waitMs(task, endpoint), 'slow');
          return 'moved' as const;
        }
        // A failing endpoint's task that is due (not waiting for notBefore or the breaker anyway).
        const failing =
          endpoint !== undefined &&
          endpoint.status !== 'disabled' &&
          endpoint.failures > 0 &&
          this.#due(task, endpoint);
        if (failing) {
          if (probing.has(endpoint.id)) {
            later.add(
              {
                ...task,
                notBefore: new Date(this.#now().getTime() + FAILING_ENDPOINT_WAIT_MS).toISOString(),
              },
              FAILING_ENDPOINT_WAIT_MS,
              'slow',
            );
            return 'waiting' as const;
          }
          probing.add(endpoint.id);
        }
        return this.#deliver(task, endpoint, later, bounds, lane);
      }),
    );
    try {
      await later.flush(this.#lanes());
    } catch (error) {
      // A task that was to be queued again must not be acknowledged: it fails back to SQS (the
      // delivered ones stand).
      return settled.map((each) =>
        each.status === 'fulfilled' &&
        (each.value === 'waiting' || each.value === 'retrying' || each.value === 'moved')
          ? { status: 'rejected', reason: error }
          : each,
      );
    }
    return settled;
  }

  #due(task: DeliveryTask, endpoint: EndpointRecord): boolean {
    return this.#waitMs(task, endpoint) === 0;
  }

  /** How long a task still waits for its notBefore or its endpoint's breaker (0: due). */
  #waitMs(task: DeliveryTask, endpoint: EndpointRecord): number {
    const until = Math.max(
      task.notBefore ? Date.parse(task.notBefore) : 0,
      endpoint.breakerOpenUntil ? Date.parse(endpoint.breakerOpenUntil) : 0,
    );
    return Math.max(0, until - this.#now().getTime());
  }

  /** The queue of each lane (one queue for both without a slow lane). */
  #lanes(): Record<DeliveryLane, DeliveryQueue> {
    return { main: this.#o.queue, slow: this.#o.slowQueue ?? this.#o.queue };
  }

  async #undelivered(
    endpointId: string,
    event: Pick<CloudEvent, 'id' | 'type'>,
    reason: string,
  ): Promise<void> {
    await recordDelivery(
      this.#o.store,
      { endpointId, eventId: event.id, eventType: event.type },
      { status: 'undelivered', reason, now: this.#now() },
    );
  }

  /** Carries out one task; never throws for an endpoint's failure (only for the store's or queue's). */
  async deliver(
    task: DeliveryTask,
    lane: DeliveryLane = 'main',
    bounds: BatchBounds = {},
  ): Promise<TaskOutcome> {
    const [result] = await this.deliverBatch([task], lane, bounds);
    if (result?.status === 'rejected') throw result.reason;
    return (result as PromiseFulfilledResult<TaskOutcome>).value;
  }

  async #deliver(
    task: DeliveryTask,
    endpoint: EndpointRecord | undefined,
    later: LaterTasks,
    bounds: BatchBounds,
    lane: DeliveryLane,
  ): Promise<TaskOutcome> {
    const now = this.#now();
    // The reads are independent: one round trip to the store instead of several in a row (the
    // endpoint was read once for the batch; the signing key is read once per instance).
    const waitUntil = Math.max(
      task.notBefore ? Date.parse(task.notBefore) : 0,
      endpoint?.breakerOpenUntil ? Date.parse(endpoint.breakerOpenUntil) : 0,
    );
    if (endpoint && endpoint.status !== 'disabled' && waitUntil > now.getTime()) {
      // Waiting (notBefore, or the breaker): queued again without reading the event, on the lane of
      // the endpoint's health.
      later.add(task, waitUntil - now.getTime(), unhealthy(endpoint) ? 'slow' : 'main');
      return 'waiting';
    }
    const [event, privateKey, doneSince] = await Promise.all([
      keptEvent(this.#o.store, task.eventId),
      this.#privateKey(),
      this.#deliveredSinceQueued(task, endpoint),
    ]);
    if (doneSince) {
      // A replay (or the task a replay overtook) delivered it after this task was queued.
      this.#o.metrics?.addMetric('WebhookDuplicatesAvoided', 'Count', 1);
      return 'already-delivered';
    }
    if (!event) {
      this.#log.warn('Webhook task for an event no longer kept', { ...task });
      return 'undelivered';
    }
    if (!endpoint || endpoint.status === 'disabled') {
      await this.#undelivered(
        task.endpointId,
        event,
        endpoint ? 'the endpoint was disabled' : 'the endpoint was deleted',
      );
      return 'undelivered';
    }
    const timeoutMs = attemptTimeoutMs(this.#o.timeoutMs, bounds.attemptsEndBy);
    if (timeoutMs < MIN_ATTEMPT_MS) {
      // Too little of the invocation is left for an attempt: queued again at once, no attempt spent,
      // so the batch is never returned whole (and sent twice) because its time ran out.
      later.add(task, 0, unhealthy(endpoint) ? 'slow' : 'main');
      return 'waiting';
    }
    const { result, stoppedAtMs } = await this.#attempt(endpoint, event, now, privateKey, timeoutMs, lane);
    if (stoppedAtMs !== undefined) return this.#handOff(task, endpoint, now, later, stoppedAtMs);
    const attempt = {
      at: now.toISOString(),
      attempt: task.attempt,
      ...(result.status !== undefined ? { status: result.status } : {}),
      latencyMs: result.latencyMs,
      response: result.response,
      ...(task.replay ? { replay: true } : {}),
    };
    const base = { endpointId: endpoint.id, eventId: event.id, eventType: event.type };
    this.#o.metrics?.addMetric('WebhookAttempts', 'Count', 1);
    if (result.status !== undefined && result.status >= 200 && result.status < 300) {
      await recordDelivery(
        this.#o.store,
        base,
        { status: 'delivered', attempt, now },
        { likelyNew: task.attempt === 1 && !task.replay },
      );
      await this.#succeeded(endpoint, lane === 'slow' && this.#hasBudget(timeoutMs) && result.latencyMs, now);
      this.#o.metrics?.addMetric('WebhookDelivered', 'Count', 1);
      return 'delivered';
    }
    if (result.status === 410) {
      await recordDelivery(this.#o.store, base, {
        status: 'failed',
        reason: 'the endpoint answered 410 Gone and was disabled',
        attempt,
        now,
      });
      await this.#disable(endpoint, 'gone', 'the endpoint answered 410 Gone');
      return 'disabled';
    }
    const failing = await this.#failed(endpoint, now);
    if (failing.status === 'disabled') {
      await recordDelivery(this.#o.store, base, {
        status: 'failed',
        reason: 'the endpoint was disabled after failing for too long',
        attempt,
        now,
      });
      return 'disabled';
    }
    // The delivery schedule (./schedule.ts): the next attempt goes back through the queue, minutes to
    // days later. A schedule of deliveries, not an in-process retry loop, so not packages/bridge/src/core/retry.ts.
    const delay = retryDelayMs(task.attempt, {
      retryAfterSeconds: parseRetryAfter(result.retryAfter, now),
      ...(this.#o.random ? { random: this.#o.random } : {}),
    });
    if (delay === undefined) {
      await recordDelivery(this.#o.store, base, {
        status: 'failed',
        reason: `no success in ${task.attempt} attempts`,
        attempt,
        now,
      });
      this.#o.metrics?.addMetric('WebhookFailed', 'Count', 1);
      return 'failed';
    }
    const nextAttemptAt = new Date(now.getTime() + delay).toISOString();
    await recordDelivery(this.#o.store, base, { status: 'pending', attempt, nextAttemptAt, now });
    // The endpoint has just failed: its retry takes the slow lane.
    later.add(
      { ...task, attempt: task.attempt + 1, notBefore: nextAttemptAt, queuedAt: now.toISOString() },
      delay,
      'slow',
    );
    return 'retrying';
  }

  /**
   * True when the log records this delivery done since the task was queued, so sending it would be a
   * duplicate the bridge knows of. The log is read only where another task may have delivered it: a
   * replayed task (the original may be in flight), or a task of an endpoint replayed since the task
   * was queued (the replay may have overtaken it). The common delivery reads nothing more.
   */
  async #deliveredSinceQueued(task: DeliveryTask, endpoint: EndpointRecord | undefined): Promise<boolean> {
    const queuedAt = task.queuedAt ?? '';
    const overtakable =
      task.replay || (endpoint?.replayedAt !== undefined && endpoint.replayedAt >= queuedAt);
    if (!overtakable) return false;
    const record = await getDelivery(this.#o.store, task.endpointId, task.eventId);
    return record?.status === 'delivered' && record.updatedAt > queuedAt;
  }

  /** The `v1a` private key (undefined when `asymmetric` is false), read from the store once. */
  #privateKey(): Promise<string | undefined> {
    if (this.#o.asymmetric === false) return Promise.resolve(undefined);
    if (!this.#signingKey) {
      const reading = this.secrets.signingKey().then((pair) => pair.privateKey);
      // A failed read is not kept: the next delivery reads again.
      reading.catch(() => {
        if (this.#signingKey === reading) this.#signingKey = undefined;
      });
      this.#signingKey = reading;
    }
    return this.#signingKey;
  }

  /**
   * One POST; on the main lane watched by its budget: `stoppedAtMs` is the budget it was stopped at
   * (no answer came within it), and an answer's time goes into the budget.
   */
  async #attempt(
    endpoint: EndpointRecord,
    event: CloudEvent,
    now: Date,
    privateKey: string | undefined,
    timeoutMs: number,
    lane: DeliveryLane,
  ): Promise<{ result: PostResult; stoppedAtMs?: number }> {
    const budget = this.#budgetFor(lane, timeoutMs);
    const overBudget = new AbortController();
    let stoppedAtMs: number | undefined;
    const unwatch = budget?.watch((budgetMs) => {
      stoppedAtMs = budgetMs;
      overBudget.abort(new Error(`no complete answer within the main lane's budget (${budgetMs} ms)`));
    });
    let result: PostResult;
    try {
      result = await this.#post(endpoint, event, now, privateKey, timeoutMs, overBudget.signal);
    } finally {
      unwatch?.();
    }
    if (result.status !== undefined) {
      budget?.answered(result.latencyMs);
      return { result };
    }
    return stoppedAtMs === undefined ? { result } : { result, stoppedAtMs };
  }

  async #post(
    endpoint: EndpointRecord,
    event: CloudEvent,
    now: Date,
    privateKey: string | undefined,
    timeoutMs: number,
    stop: AbortSignal,
  ): Promise<PostResult> {
    const body = JSON.stringify(event);
    const [secrets, custom] = await Promise.all([
      this.secrets.values(endpoint.id, liveSecrets(endpoint, now)),
      endpoint.headersRef ? this.secrets.headers(endpoint.id, endpoint.headersRef) : {},
      this.#dropExpired(endpoint, now),
    ]);
    const signed = webhookHeaders(
      { id: event.id, timestampSeconds: Math.floor(now.getTime() / 1000), body },
      { secrets, privateKey },
    );
    const post = this.#o.post ?? postWebhook;
    // The endpoint's own headers first: the bridge's (signatures, content-type) are set after them.
    return post(
      new URL(endpoint.url),
      body,
      { ...custom, ...signed },
      {
        policy: this.#o.policy,
        timeoutMs,
        stop,
      },
    );
  }

  /** Deletes secrets whose rotation overlap has passed (best effort: the next attempt tries again). */
  async #dropExpired(endpoint: EndpointRecord, now: Date): Promise<void> {
    if (endpoint.secretRefs.every((ref) => isLive(ref, now))) return;
    try {
      await this.registry.dropExpiredSecrets(endpoint);
    } catch (error) {
      this.#log.warn('Could not delete the expired secrets of a webhook endpoint', {
        endpointId: endpoint.id,
        error: (error as Error).message,
      });
    }
  }

  /**
   * After a success: the endpoint is not failing any more. It stays slow (its tasks on the slow lane)
   * while its answers on the slow lane, `slowLaneMs`, take longer than the budget it was handed off
   * at; an answer on the main lane came within the budget (`false`).
   */
  async #succeeded(endpoint: EndpointRecord, slowLaneMs: number | false, now: Date): Promise<void> {
    const budgetMs = endpoint.slowAfterMs ?? this.#budget.currentMs();
    const slow = slowLaneMs !== false && slowLaneMs > budgetMs;
    if (endpoint.failures === 0 && (endpoint.slowSince !== undefined) === slow) return;
    await this.registry.change(endpoint.id, (record) => {
      const {
        failingSince: _since,
        breakerOpenUntil: _until,
        slowSince,
        slowAfterMs: _budget,
        ...rest
      } = record;
      return {
        ...rest,
        failures: 0,
        ...(slow ? { slowSince: slowSince ?? now.toISOString(), slowAfterMs: budgetMs } : {}),
      };
    });
  }

  /**
   * No answer within the main lane's budget: the attempt was stopped, is not counted as a failure, and
   * its task goes to the slow lane at once with the whole deadline; the endpoint is marked slow, with
   * the budget it missed, so it holds no main-lane batch again until it answers within that budget.
   * The receiver may have taken it already: the slow lane's attempt is then a duplicate with the same
   * webhook-id (docs/webhooks.md).
   */
  async #handOff(
    task: DeliveryTask,
    endpoint: EndpointRecord,
    now: Date,
    later: LaterTasks,
    budgetMs: number,
  ): Promise<'moved'> {
    await this.registry.change(endpoint.id, (record) =>
      record.slowSince !== undefined || record.status === 'disabled'
        ? undefined
        : { ...record, slowSince: now.toISOString(), slowAfterMs: budgetMs },
    );
    later.add(task, 0, 'slow');
    this.#o.metrics?.addMetric('WebhookMovedToSlowLane', 'Count', 1);
    return 'moved';
  }

  /** Whether attempts on the main lane have a budget apart from their deadline (a slow lane to hand to). */
  #hasBudget(timeoutMs: number): boolean {
    return this.#o.slowQueue !== undefined && this.#budget.capMs < timeoutMs;
  }

  /** The main lane's budget where an attempt on `lane` has one (./lane-budget.ts). */
  #budgetFor(lane: DeliveryLane, timeoutMs: number): MainLaneBudget | undefined {
    return lane === 'main' && this.#hasBudget(timeoutMs) ? this.#budget : undefined;
  }

  /** Counts a failure: opens the breaker at the threshold, disables after `disableAfterMs`. */
  async #failed(endpoint: EndpointRecord, now: Date): Promise<EndpointRecord> {
    const disableAfterMs = this.#o.disableAfterMs ?? 5 * 86_400_000;
    let disabledNow = false;
    const changed = await this.registry.change(endpoint.id, (record) => {
      if (record.status === 'disabled') return undefined;
      const failures = record.failures + 1;
      const failingSince = record.failingSince ?? now.toISOString();
      disabledNow = now.getTime() - Date.parse(failingSince) >= disableAfterMs;
      const openMs = breakerOpenMs(failures);
      return {
        ...record,
        failures,
        failingSince,
        ...(openMs > 0 ? { breakerOpenUntil: new Date(now.getTime() + openMs).toISOString() } : {}),
        ...(disabledNow
          ? {
              status: 'disabled' as const,
              disabledReason: `failing since ${failingSince}`,
              disabledAt: now.toISOString(),
            }
          : {}),
        updatedAt: now.toISOString(),
      };
    });
    if (changed.failures === BREAKER_THRESHOLD)
      this.#log.warn('Webhook endpoint breaker opened', { endpointId: endpoint.id });
    if (disabledNow)
      await this.#announce({
        endpoint: changed,
        reason: 'failing',
        detail: `failing since ${changed.failingSince}`,
      });
    return changed;
  }

  async #disable(
    endpoint: EndpointRecord,
    reason: EndpointDisabled['reason'],
    detail: string,
  ): Promise<void> {
    const changed = await this.registry.disable(endpoint.id, detail);
    await this.#announce({ endpoint: changed, reason, detail });
  }

  async #announce(disabled: EndpointDisabled): Promise<void> {
    this.#o.metrics?.addMetric('WebhookEndpointsDisabled', 'Count', 1);
    this.#log.warn('Webhook endpoint disabled', {
      endpointId: disabled.endpoint.id,
      reason: disabled.reason,
    });
    await this.#o.onDisabled?.(disabled);
  }

  /**
   * Queues events again for one endpoint, with their original ids (./replay.ts); answers the ids
   * queued, those skipped and where the next page of a time range starts.
   */
  replay(endpointId: string, request: ReplayRequest): Promise<ReplayResult> {
    const { store, queue, retentionMs } = this.#o;
    return replayEvents(
      { store, queue, registry: this.registry, now: this.#now, ...(retentionMs ? { retentionMs } : {}) },
      endpointId,
      request,
    );
  }
}

/**
 * How long the other tasks of a failing endpoint wait when one of its tasks is already attempted in
 * the same batch (no attempt is spent): 5 s, the first retry delay.
 */
export const FAILING_ENDPOINT_WAIT_MS = 5_000;

/** What bounds the attempts of one batch beyond their own deadline. */
export interface BatchBounds {
  /**
   * Epoch ms by which every attempt of the batch must have ended, so its outcome is recorded before
   * the invocation's own time runs out (the handler passes its remaining time less a reserve for the
   * recording). An attempt's deadline is the shorter of `timeoutMs` and this; default none.
   */
  readonly attemptsEndBy?: number;
}

/** What an attempt on the main lane may take before it is handed to the slow lane (WEBHOOK_MAIN_LANE_MS). */
export const DEFAULT_MAIN_LANE_BUDGET_MS = 2_000;

/** An attempt is not begun with less time than this (it is queued again instead). */
export const MIN_ATTEMPT_MS = 100;

/** The deadline of an attempt begun now: `timeoutMs`, cut to what is left before `attemptsEndBy`. */
function attemptTimeoutMs(timeoutMs = DEFAULT_ATTEMPT_TIMEOUT_MS, attemptsEndBy?: number): number {
  return attemptsEndBy === undefined ? timeoutMs : Math.min(timeoutMs, attemptsEndBy - Date.now());
}
