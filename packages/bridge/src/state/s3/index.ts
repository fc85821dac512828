/**
 * The S3 adapter of the `StateStore` port. A separate entry from `../index.ts` because it loads the
 * AWS SDK; only edge code (packages/bridge/src/lambda/adapters.ts, the CLI, the consumer kit's S3 half, permissions, benches)
 * imports it.
 */
export { S3StateStore, type S3StateStoreOptions, STATE_STORE_ACTIONS } from './store.ts';
