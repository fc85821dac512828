/**
 * The HTTP implementation of the PDS port (ports.ts): `createPdsClient` is the `/api/v1` workflow over
 * one transport, all a Lambda uses. The `/v1` families and the table of every operation of the spec are
 * in ./v1/ (`createFullPdsClient`, `PDS_OPERATIONS`).
 */
import type { ClosablePdsClient } from './ports.ts';
import { PdsTransport, type PdsTransportOptions } from './transport.ts';
import { PdsWorkflow } from './workflow.ts';

export type PdsClientOptions = PdsTransportOptions;

/**
 * Builds the HTTP implementation of {@link PdsClient}. Options are checked at once: a bad base URL,
 * empty credentials or a negative timeout throw packages/bridge/src/core's `ConfigError` here, not on the first call.
 *
 * @example
 * ```ts
 * const pds = createPdsClient({ baseUrl: process.env.PDS_BASE_URL!, credentials: await resolveCredentials() });
 * const channels = await pds.listCommunicationChannels();
 * await pds.close();
 * ```
 */
export function createPdsClient(options: PdsClientOptions): ClosablePdsClient {
  return new HttpPdsClient(new PdsTransport(options));
}

/** The `/api/v1` workflow with the transport's `close()`; ./v1/client.ts extends it with the families. */
export class HttpPdsClient extends PdsWorkflow implements ClosablePdsClient {
  readonly #transport: PdsTransport;

  constructor(transport: PdsTransport) {
    super(transport);
    this.#transport = transport;
  }

  close(): Promise<void> {
    return this.#transport.close();
  }
}
