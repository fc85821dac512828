/** The S3 adapters of the consumer kit: claim-checked payloads and the shared deduplication store. */
export { type S3DedupStoreOptions, s3DedupStore } from './dedup-store.ts';
export { s3PayloadFetcher } from './payload-fetcher.ts';
