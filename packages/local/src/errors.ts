/** Errors of the local stack and its commands; each message names the problem and the fix. */

import { BridgeError } from '@pds-bridge/bridge/core';

/** A port the stack was asked to listen on, what it is for and the flag that chooses it. */
export interface StackPort {
  readonly what: string;
  readonly port: number;
  readonly flag: string;
}

/**
 * A port the stack was asked to listen on is taken; `alsoTaken` names the other requested ports that
 * are taken too, so one start reports every clash at once.
 */
export class PortInUseError extends BridgeError {
  readonly port: number;
  readonly flag: string;
  /** Every taken port, this one first. */
  readonly taken: readonly StackPort[];

  constructor(
    what: string,
    port: number,
    flag: string,
    options?: ErrorOptions & { alsoTaken?: readonly StackPort[] },
  ) {
    const taken = [{ what, port, flag }, ...(options?.alsoTaken ?? [])];
    super(
      'PORT_IN_USE',
      taken.length === 1
        ? `port ${port} for ${what} is already in use; stop whatever listens there or choose another port with ${flag} (0 picks a free one)`
        : `ports already in use: ${taken.map((each) => `${each.port} for ${each.what} (${each.flag})`).join(', ')}; stop whatever listens there or choose other ports with those flags (0 picks a free one)`,
      options,
    );
    this.name = 'PortInUseError';
    this.port = port;
    this.flag = flag;
    this.taken = taken;
  }
}

/** The handlers read their configuration once per process, so a process runs one stack only. */
export class LocalStackStartedError extends BridgeError {
  constructor() {
    super(
      'LOCAL_STACK_STARTED',
      'A local stack was already started in this process; the handlers read their configuration once per process, so start another stack in a new process',
    );
    this.name = 'LocalStackStartedError';
  }
}

/** True for the error Node gives when a listen address is taken. */
export function isAddressInUse(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE';
}

/** A step did not happen in time or went wrong; the message says what was missing. */
export class DemoStepError extends BridgeError {
  readonly step: string;

  constructor(step: string, reason: string) {
    super('DEMO_STEP_FAILED', reason);
    this.name = 'DemoStepError';
    this.step = step;
  }
}

/** The installed local emulator is not the version the local stack was written and corrected for. */
export class EmulatorUnsupportedError extends BridgeError {
  constructor(message: string, options?: ErrorOptions) {
    super('EMULATOR_UNSUPPORTED', message, options);
    this.name = 'EmulatorUnsupportedError';
  }
}

/** EventBridge output was asked for locally, but no EventBridge backend is configured or answering. */
export class LocalEventBridgeError extends BridgeError {
  constructor(message: string, options?: ErrorOptions) {
    super('LOCAL_EVENTBRIDGE_UNAVAILABLE', message, options);
    this.name = 'LocalEventBridgeError';
  }
}
