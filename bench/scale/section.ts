/** The shape of a section of bench/scale.ts (one module under bench/scale/ each). */

/** One named part of the benchmark. */
export interface ScaleSection {
  /** What it measures, for --help. */
  summary: string;
  /**
   * Runs it with its own flags (the sections' flags differ in meaning, so each parses its own with
   * parseScriptArgs: `--help` prints them, an unknown flag exits in one line); throws an Error with a
   * one-line message for a bad value.
   */
  run(argv: string[]): Promise<void>;
}
