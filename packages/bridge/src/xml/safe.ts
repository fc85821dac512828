/**
 * The poller's entry point: parse and summarise a messaging asset without ever throwing, so one
 * broken message is reported in its event instead of stopping the run.
 */
import { boundedText } from '../core/index.ts';
import { type CicSummary, summariseCatalogueItemConfirmation } from './cic.ts';
import type { ParsedDocument } from './document.ts';
import { type XmlErrorInfo, XmlParseError } from './errors.ts';
import { GDSN_SUMMARY_CAPS } from './gdsn/caps.ts';
import { type GdsnMessageSummary, summariseGdsnMessage } from './gdsn.ts';
import { type ParseOptions, parseMessagingAsset } from './parse.ts';

export type SafeParseResult =
  | { ok: true; document: ParsedDocument; cic?: CicSummary[]; gdsn?: GdsnMessageSummary }
  | { ok: false; error: XmlErrorInfo };

/**
 * Parses `xml` like {@link parseMessagingAsset} and adds the CIC summaries (at most
 * `GDSN_SUMMARY_CAPS.items`) and the GDSN message summary (./gdsn.ts) when there are; any
 * failure comes back as `{ ok: false, error }` with a JSON-safe error (name, code, message, line, column).
 *
 * @example
 * const result = parseMessagingAssetSafely(xml);
 * const data = result.ok ? { document: result.document, cic: result.cic } : { parseError: result.error, rawXml: xml };
 */
export function parseMessagingAssetSafely(xml: string, options?: ParseOptions): SafeParseResult {
  try {
    const document = parseMessagingAsset(xml, options);
    const cic = summariseCatalogueItemConfirmation(document);
    const gdsn = summariseGdsnMessage(document, cic);
    return {
      ok: true,
      document,
      // Capped like the summary's items, which counts what the cap leaves out (gdsn.truncated.items).
      ...(cic === undefined ? {} : { cic: cic.slice(0, GDSN_SUMMARY_CAPS.items) }),
      ...(gdsn === undefined ? {} : { gdsn }),
    };
  } catch (error) {
    if (error instanceof XmlParseError) return { ok: false, error: error.toInfo() };
    const name = error instanceof Error ? error.name : 'Error';
    const message = boundedText(error instanceof Error ? error.message : String(error));
    return { ok: false, error: { name, message } };
  }
}
