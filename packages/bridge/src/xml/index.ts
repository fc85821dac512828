/** Messaging-asset XML: a stable JSON shape, GDSN message summaries (CIC and every other type), safe parsing. */
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
export {
  type GdsnError,
  type GdsnItem,
  type GdsnMessageSummary,
  type GdsnMessageType,
  summariseGdsnMessage,
} from './gdsn.ts';
export { DEFAULT_MAX_XML_ATTRIBUTES, DEFAULT_MAX_XML_ELEMENTS } from './limits.ts';
export {
  DEFAULT_MAX_XML_BYTES,
  DEFAULT_MAX_XML_DEPTH,
  type ParseOptions,
  parseMessagingAsset,
} from './parse.ts';
export { parseMessagingAssetSafely, type SafeParseResult } from './safe.ts';
