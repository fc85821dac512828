/**
 * The one metrics port of the bridge; the Powertools `Metrics` satisfies it, so handlers pass theirs
 * straight in and flush it at the handler edge.
 */

/** The CloudWatch units the bridge records (a subset of Powertools' `MetricUnit`). */
export type MetricUnit = 'Count' | 'Milliseconds' | 'Seconds' | 'Bytes';

/** Records one data point; the Powertools `Metrics.addMetric` fits. */
export interface Metrics {
  addMetric(name: string, unit: MetricUnit, value: number): unknown;
}

/**
 * Metrics that record nothing: the default of library functions called without any.
 *
 * @example
 * ```ts
 * const metrics = deps.metrics ?? noopMetrics;
 * metrics.addMetric('AssetsEmitted', 'Count', 3);
 * ```
 */
export const noopMetrics: Metrics = Object.freeze({ addMetric() {} });

/**
 * Adds one `Count` data point per entry, in the entries' order: a run report becomes its metrics in
 * one table instead of one `addMetric` line each.
 *
 * @example
 * ```ts
 * addCounts(metrics, { AssetsEmitted: report.emitted, AssetsFailed: report.failed });
 * ```
 */
export function addCounts(metrics: Metrics, counts: Readonly<Record<string, number>>): void {
  for (const [name, value] of Object.entries(counts)) metrics.addMetric(name, 'Count', value);
}
