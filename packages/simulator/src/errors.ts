/**
 * Errors of the simulator itself: a request it refuses (turned into the JSON error answer of
 * docs/spec-gaps.md), options a caller passed wrongly, an archive over its limits and CSV it cannot read.
 */

import { BridgeError } from '@pds-bridge/bridge/core';

/**
 * A request the simulator refuses; server.ts answers it as `{status, error, message}`.
 *
 * @example
 * throw new SimulatorHttpError(404, "No item has primary key '123'; create it by an import first");
 */
export class SimulatorHttpError extends BridgeError {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super('SIMULATOR_HTTP', message, { retryable: status === 429 || status >= 500 });
    this.name = 'SimulatorHttpError';
    this.status = status;
    this.headers = headers;
  }
}

/** An option of `startSimulator`, `setFaults` or `failNext` is out of range; the message names it and its allowed values. */
export class SimulatorOptionsError extends BridgeError {
  constructor(message: string) {
    super('INVALID_OPTION', message);
    this.name = 'SimulatorOptionsError';
  }
}

/** An archive over one of the {@link ArchiveLimits}; the simulator answers it with 413. */
export class ArchiveLimitError extends BridgeError {
  declare readonly code:
    | 'ARCHIVE_TOO_MANY_MEMBERS'
    | 'ARCHIVE_TOO_LARGE_EXPANDED'
    | 'ARCHIVE_EXPANSION_RATIO';

  constructor(code: ArchiveLimitError['code'], archive: string, problem: string) {
    super(code, `The archive '${archive}' ${problem}; split it into smaller archives`);
    this.name = 'ArchiveLimitError';
  }
}

/**
 * The CSV text cannot be read; the message says where it is broken. `code`: `CSV_MALFORMED` (a quote
 * left open) or `CSV_RECORD_TOO_LONG` (a record over {@link MAX_CSV_RECORD_CHARS}).
 */
export class CsvFormatError extends BridgeError {
  declare readonly code: 'CSV_MALFORMED' | 'CSV_RECORD_TOO_LONG';

  constructor(
    detail: string,
    code: 'CSV_MALFORMED' | 'CSV_RECORD_TOO_LONG' = 'CSV_MALFORMED',
    fix = `close every quoted field with '"' and escape quotes inside it as '""'`,
  ) {
    super(code, `Invalid CSV: ${detail}; ${fix}`);
    this.name = 'CsvFormatError';
  }
}
