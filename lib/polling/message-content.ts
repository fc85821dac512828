/**
 * What an event says about a fetched XML message, for both pollers: the parsed document (and CIC
 * summaries), or the parse error with the raw XML. The XML was fetched, so a failure to carry it is
 * a failure of that message, never of the fetch: when the parsed document does not fit the event's
 * schema (`EventDataError`), the event is built again with a `parseError` of code `UNREPRESENTABLE`
 * and the raw XML, as for XML that does not parse.
 */
import { boundedText } from '../core/index.ts';
import { EventDataError } from '../events/index.ts';
import type { CicSummary, ParsedDocument, XmlErrorInfo } from '../xml/index.ts';
import { parseMessagingAssetSafely } from '../xml/index.ts';

/** The message part of an event's data. */
export type MessageContent =
  | { document: ParsedDocument; cic?: CicSummary[] }
  | { parseError: XmlErrorInfo; rawXml: string };

/**
 * Builds an event with the content of `xml`, falling back to a `parseError` when the document
 * cannot be carried; any other failure of `build` is thrown.
 *
 * @example
 * ```ts
 * const event = withMessageContent(xml, (content) => createEvent({ type, subject, idParts, data: { id, ...content } }));
 * ```
 */
export function withMessageContent<E>(xml: string, build: (content: MessageContent) => E): E {
  const parsed = parseMessagingAssetSafely(xml);
  if (!parsed.ok) return build({ parseError: parsed.error, rawXml: xml });
  try {
    return build({ document: parsed.document, ...(parsed.cic ? { cic: parsed.cic } : {}) });
  } catch (error) {
    if (!(error instanceof EventDataError)) throw error;
    return build({ parseError: unrepresentable(error), rawXml: xml });
  }
}

function unrepresentable(error: EventDataError): XmlErrorInfo {
  return {
    name: error.name,
    code: 'UNREPRESENTABLE',
    message: boundedText(`The XML parsed, but its document cannot be carried by the event: ${error.issues}`),
  };
}
