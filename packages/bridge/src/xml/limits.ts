/**
 * The count limits of a messaging asset: how many elements and attributes one document may hold.
 * The size limit (10 MiB) alone does not bound memory: 10 MiB of `<a/>` is 2.5 million elements,
 * and each element of the parsed tree costs about 100 bytes of heap and more, so such a document
 * took gigabytes and stopped the poller. Both parsing paths count while they read the markup and
 * refuse (`LIMIT_EXCEEDED`) before a tree of that size exists.
 */

/** Default element limit (the root included). A GDSN message holds a few thousand elements. */
export const DEFAULT_MAX_XML_ELEMENTS = 200_000;
/** Default attribute limit (namespace declarations included). */
export const DEFAULT_MAX_XML_ATTRIBUTES = 200_000;

/** The count limits, checked while the markup is read. */
export interface CountLimits {
  readonly maxElements: number;
  readonly maxAttributes: number;
}

export const DEFAULT_COUNT_LIMITS: CountLimits = {
  maxElements: DEFAULT_MAX_XML_ELEMENTS,
  maxAttributes: DEFAULT_MAX_XML_ATTRIBUTES,
};
