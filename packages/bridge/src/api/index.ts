/**
 * The HTTP API of the bridge (docs/api.md): `createApi` builds it from its ports, and its settings
 * are the api function's configuration variables. The api function itself is built by ./handlers.ts,
 * the module's other entry, which loads the AWS SDK.
 */
export { type Api, createApi } from './api.ts';
export type { ApiDependencies } from './route-context.ts';
export { type ApiSchemas, createApiSchemas } from './schemas.ts';
export { API_SETTINGS, type ApiSettings, apiSettingsOf } from './settings.ts';
