/** The shape of a section of bench/scale.ts (one module under bench/scale/ each). */
import type { ParseArgsOptionsConfig } from 'node:util';

/** One named part of the benchmark. */
export interface ScaleSection {
  /** What it measures, for --help. */
  summary: string;
  /** Its flags (node:util parseArgs options, all `string` or `boolean`) with their help lines. */
  options: ParseArgsOptionsConfig;
  help: string[];
  /** Runs it; throws an Error with a one-line message for a bad flag value. */
  run(values: Record<string, string | boolean | undefined>): Promise<void>;
}
