/**
 * The scheduled audit's last report, kept in the state bucket (`audits/messaging-assets.json`) so an
 * operator sees when the audit last ran and what it found (`pds bridge status`, the console's
 * Pipeline page) without CloudWatch, which a local stack does not have. One small object rewritten by
 * each audit: the counts whole, at most {@link AUDIT_IDS_NAMED} ids named per kind (./audit.ts), the
 * error bounded. An audit that fails keeps the findings of the last one that completed, so "what
 * gaps were there" survives a PDS outage; no object at all means no audit has run.
 */
import { errorSummary } from '../../core/index.ts';
import type { StateStore } from '../../state/index.ts';
import { MESSAGING_ASSETS_AUDIT_KEY } from '../keys.ts';
import type { AuditReport } from './audit.ts';

/** What an audit that completed found: its report without the emission's details. */
export type AuditFindings = Omit<AuditReport, 'emission'>;

/** The object stored under {@link MESSAGING_ASSETS_AUDIT_KEY}. */
export interface AuditRecord {
  /** How the latest audit ended (ISO times). */
  lastRun: { startedAt: string; endedAt: string; ok: boolean; error?: string };
  /** What the latest audit that completed found, and when it ended; absent until one completed. */
  lastReport?: AuditFindings & { at: string };
}

function findings(report: AuditReport): AuditFindings {
  const { emission: _emission, ...rest } = report;
  return rest;
}

/**
 * Runs `audit` and records how it ended under {@link MESSAGING_ASSETS_AUDIT_KEY}; returns (or throws)
 * what the audit did. The record is written after the audit, once; a failure to write it is thrown
 * only when the audit itself succeeded (the audit's own error wins).
 *
 * @example
 * ```ts
 * const report = await recordedAudit(store, () => auditMessagingAssets(deps, { apply: true }));
 * ```
 */
export async function recordedAudit(
  store: StateStore,
  audit: () => Promise<AuditReport>,
  now: () => number = Date.now,
): Promise<AuditReport> {
  const startedAt = new Date(now()).toISOString();
  let report: AuditReport;
  try {
    report = await audit();
  } catch (error) {
    const endedAt = new Date(now()).toISOString();
    const failed = { startedAt, endedAt, ok: false, error: errorSummary(error) };
    await store
      .mutate<AuditRecord>(MESSAGING_ASSETS_AUDIT_KEY, (current) => ({
        lastRun: failed,
        ...(current?.lastReport ? { lastReport: current.lastReport } : {}),
      }))
      // The audit's error is what the invocation ends with; a record that could not be written is the lesser news.
      .catch(() => undefined);
    throw error;
  }
  const endedAt = new Date(now()).toISOString();
  await store.mutate<AuditRecord>(MESSAGING_ASSETS_AUDIT_KEY, () => ({
    lastRun: { startedAt, endedAt, ok: true },
    lastReport: { ...findings(report), at: endedAt },
  }));
  return report;
}

/**
 * The audit's record, or `undefined` when no audit has recorded one (it never ran, or ran before the
 * bridge kept its reports).
 *
 * @example
 * ```ts
 * const audit = await readAuditRecord(store);
 * audit?.lastReport?.gaps;
 * ```
 */
export async function readAuditRecord(store: StateStore): Promise<AuditRecord | undefined> {
  return (await store.get<AuditRecord>(MESSAGING_ASSETS_AUDIT_KEY))?.value;
}
