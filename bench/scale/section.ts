/** The shape of a section of bench/scale.ts (one module under bench/scale/ each). */

/** One named part of the benchmark. */
export interface ScaleSection {
  /** What it measures, for --help. */
  summary: string;
  /** Its usage line and flags, for --help. */
  help: string;
  /**
   * Runs it with its own flags (the sections' flags differ in meaning, so each parses its own,
   * strictly); throws an Error with a one-line message for a bad flag or value.
   */
  run(argv: string[]): Promise<void>;
}
