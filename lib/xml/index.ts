/** Messaging-asset XML: a stable JSON shape, GDSN CatalogueItemConfirmation summaries, safe parsing. */
export {
  type CicCorrectiveAction,
  type CicDescription,
  type CicStatus,
  type CicSummary,
  type GdsnVersion,
  summariseCatalogueItemConfirmation,
} from './cic.ts';
export {
  ATTRIBUTE_PREFIX,
  attributeOf,
  child,
  children,
  type ParsedDocument,
  TEXT_KEY,
  textOf,
  type XmlElement,
} from './document.ts';
export { decodeXmlEntities } from './entities.ts';
export { type XmlErrorInfo, XmlParseError, type XmlParseErrorCode } from './errors.ts';
export { DEFAULT_MAX_XML_ATTRIBUTES, DEFAULT_MAX_XML_ELEMENTS } from './limits.ts';
export {
  DEFAULT_MAX_XML_BYTES,
  DEFAULT_MAX_XML_DEPTH,
  type ParseOptions,
  parseMessagingAsset,
} from './parse.ts';
export { parseMessagingAssetSafely, type SafeParseResult } from './safe.ts';
