/**
 * The Lambda side of the pollers' chaos run: a fleet of containers per function (child processes
 * running bench/chaos/pollers-worker.ts), invocations with a timeout, kills at chosen moments, and
 * the tally of what every invocation came to.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import type { WriteStream } from 'node:fs';
import type { InvocationResult, PollerFunction } from './pollers-worker.ts';

/** How one invocation ended. */
export type Outcome =
  | { kind: 'ok'; value: unknown }
  | { kind: 'error'; error: { name: string; message: string } }
  /** SIGKILLed by the chaos run while it worked. */
  | { kind: 'killed' }
  /** Still running at its timeout: killed, as Lambda does. */
  | { kind: 'timeout' }
  /** The container died on its own. */
  | { kind: 'crashed'; code: number | null };

export interface FleetOptions {
  fn: PollerFunction;
  /** The bundled worker. */
  bundle: string;
  env: Record<string, string>;
  /** The function's timeout: the context counts down from it, and a run still going is killed. */
  timeoutMs: number;
  /** Where the containers' logs go. */
  log: WriteStream;
}

/** What the invocations of one function came to. */
export interface FleetTally {
  invocations: number;
  ok: number;
  /** Returned `{ skipped: true }`: another run held the lease. */
  skipped: number;
  /** Ended with an error; by error name and first words. */
  errors: Record<string, number>;
  /** Invocations given a kill moment; `killed` says how many were still working at it. */
  killsScheduled: number;
  killed: number;
  timedOut: number;
  crashed: number;
  coldStarts: number;
}

interface Container {
  child: ChildProcess;
  /** Resolves once the handler is loaded. */
  ready: Promise<void>;
}

/**
 * The containers of one function. An idle container is reused; a busy fleet starts a new (cold) one,
 * as Lambda scales out. A killed container is gone; the next invocation starts a replacement.
 */
export class Fleet {
  readonly tally: FleetTally = {
    invocations: 0,
    ok: 0,
    skipped: 0,
    errors: {},
    killsScheduled: 0,
    killed: 0,
    timedOut: 0,
    crashed: 0,
    coldStarts: 0,
  };
  /** Seconds each invocation that ran to its end took (cold starts included). */
  readonly durations: number[] = [];
  readonly #options: FleetOptions;
  readonly #idle: Container[] = [];
  readonly #all = new Set<ChildProcess>();
  #nextId = 1;
  #busy = 0;

  constructor(options: FleetOptions) {
    this.#options = options;
  }

  /** Invocations running now. */
  get busy(): number {
    return this.#busy;
  }

  /** Runs one invocation; `killAfterMs` SIGKILLs the container that long after the event was handed over. */
  async invoke(event: unknown, killAfterMs?: number): Promise<Outcome> {
    this.#busy++;
    this.tally.invocations++;
    if (killAfterMs !== undefined) this.tally.killsScheduled++;
    const started = performance.now();
    try {
      const container = this.#idle.pop() ?? this.#start();
      const outcome = await container.ready.then(
        () => this.#run(container, event, killAfterMs),
        (): Outcome => ({ kind: 'crashed', code: container.child.exitCode }),
      );
      this.#count(outcome);
      if (outcome.kind === 'ok' || outcome.kind === 'error')
        this.durations.push((performance.now() - started) / 1000);
      if (outcome.kind === 'ok' || outcome.kind === 'error') this.#idle.push(container);
      return outcome;
    } finally {
      this.#busy--;
    }
  }

  /** Kills every container of the fleet and waits until they are gone. */
  async stop(): Promise<void> {
    const exits = [...this.#all].map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    });
    await Promise.all(exits);
  }

  #start(): Container {
    const { bundle, fn, env, log } = this.#options;
    const child = fork(bundle, [fn], { env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    this.#all.add(child);
    this.tally.coldStarts++;
    // Written, not piped: dozens of containers come and go, and each pipe would add listeners to the log.
    const write = (chunk: Buffer) => log.write(chunk);
    child.stdout?.on('data', write);
    child.stderr?.on('data', write);
    child.once('exit', () => {
      this.#all.delete(child);
      const index = this.#idle.findIndex((container) => container.child === child);
      if (index >= 0) this.#idle.splice(index, 1);
    });
    const ready = new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) =>
        reject(new Error(`${fn} container exited with ${code} before it was ready`)),
      );
    });
    ready.catch(() => {}); // awaited by the invocation; an early exit must not be unhandled meanwhile
    return { child, ready };
  }

  #run(container: Container, event: unknown, killAfterMs: number | undefined): Promise<Outcome> {
    const { child } = container;
    const id = this.#nextId++;
    const timeoutMs = this.#options.timeoutMs;
    return new Promise<Outcome>((resolve) => {
      let ending: 'killed' | 'timeout' | undefined;
      const timers: NodeJS.Timeout[] = [];
      const settle = (outcome: Outcome) => {
        for (const timer of timers) clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(outcome);
      };
      const onMessage = (message: InvocationResult) => {
        if (message.id !== id) return;
        settle(message.ok ? { kind: 'ok', value: message.value } : { kind: 'error', error: message.error });
      };
      const onExit = (code: number | null) => settle(ending ? { kind: ending } : { kind: 'crashed', code });
      const kill = (why: 'killed' | 'timeout') => {
        ending = why;
        child.kill('SIGKILL');
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
      // Lambda ends an invocation at its timeout; a little grace covers the IPC round trip.
      timers.push(setTimeout(() => kill('timeout'), timeoutMs + 1000));
      if (killAfterMs !== undefined) timers.push(setTimeout(() => kill('killed'), killAfterMs));
      child.send({ id, event, timeoutMs });
    });
  }

  #count(outcome: Outcome): void {
    const tally = this.tally;
    switch (outcome.kind) {
      case 'ok':
        if ((outcome.value as { skipped?: boolean } | undefined)?.skipped) tally.skipped++;
        else tally.ok++;
        break;
      case 'error': {
        const key = `${outcome.error.name}: ${outcome.error.message.split(/[.:(]/)[0]?.slice(0, 60)}`;
        tally.errors[key] = (tally.errors[key] ?? 0) + 1;
        break;
      }
      case 'killed':
        tally.killed++;
        break;
      case 'timeout':
        tally.timedOut++;
        break;
      case 'crashed':
        tally.crashed++;
        break;
    }
  }
}
