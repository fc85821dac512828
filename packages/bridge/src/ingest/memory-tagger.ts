/**
 * An in-memory {@link ObjectTagger} with S3's merge rules and tag limit, for tests and the local stack
 * (the local S3 emulator cannot tag: it would overwrite the object's body).
 */
import type { IngestTags, ObjectRef, ObjectTagger, TagResult } from './ports.ts';
import { MAX_OBJECT_TAGS, mergeTags } from './tags.ts';

/**
 * @example
 * ```ts
 * const tagger = new MemoryObjectTagger();
 * await tagger.tag({ bucket: 'drops', key: 'items.csv' }, { 'pds-ingest-outcome': 'imported' });
 * tagger.tagsOf('drops', 'items.csv'); // { 'pds-ingest-outcome': 'imported' }
 * ```
 */
export class MemoryObjectTagger implements ObjectTagger {
  readonly #tags = new Map<string, Record<string, string>>();
  /** Every call, in order, for assertions. */
  readonly calls: Array<{ object: ObjectRef; tags: IngestTags }> = [];

  /** The current tags of an object (or one version of it); `{}` when it has none. */
  tagsOf(bucket: string, key: string, versionId?: string): Record<string, string> {
    return { ...this.#tags.get(slot(bucket, key, versionId)) };
  }

  /** Sets the owner's own tags, as if they had been put on the object at upload. */
  setTags(bucket: string, key: string, tags: Record<string, string>, versionId?: string): void {
    this.#tags.set(slot(bucket, key, versionId), { ...tags });
  }

  async tag(object: ObjectRef, tags: IngestTags): Promise<TagResult> {
    this.calls.push({ object: { ...object }, tags: { ...tags } });
    const id = slot(object.bucket, object.key, object.versionId);
    const current = Object.entries(this.#tags.get(id) ?? {}).map(([Key, Value]) => ({ Key, Value }));
    const merged = mergeTags(current, tags);
    if (merged.length > MAX_OBJECT_TAGS) {
      return {
        tagged: false,
        reason: `S3 allows ${MAX_OBJECT_TAGS} tags per object; the ingest tags do not fit`,
      };
    }
    this.#tags.set(id, Object.fromEntries(merged.map((tag) => [tag.Key ?? '', tag.Value ?? ''])));
    return { tagged: true };
  }
}

function slot(bucket: string, key: string, versionId: string | undefined): string {
  return JSON.stringify([bucket, key, versionId ?? null]);
}
