/**
 * The messaging-asset poller's room: the run (run.ts) as stages — select (select.ts), fetch and parse
 * (fetch.ts), publish (publish.ts), record progress (record.ts), folded into a report (report.ts) —
 * and the daily audit that checks the checkpoint against the whole listing (audit.ts). The kernel
 * both pollers share (checkpoint, lease, run window, poison rule, listing, metrics) is ../.
 */

export { MESSAGING_ASSETS_AUDIT_KEY, MESSAGING_ASSETS_CHECKPOINT } from '../keys.ts';
export { AUDIT_IDS_NAMED, type AuditOptions, type AuditReport, auditMessagingAssets } from './audit.ts';
export {
  type AuditFindings,
  type AuditRecord,
  readAuditRecord,
  recordedAudit,
} from './audit-record.ts';
export { emptyMessagingAssetReport } from './report.ts';
export { pollMessagingAssets } from './run.ts';
export type { MessagingAssetPollDeps, MessagingAssetPollOptions, MessagingAssetPollReport } from './types.ts';
