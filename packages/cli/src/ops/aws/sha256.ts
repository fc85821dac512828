/**
 * SHA-256 and HMAC-SHA256 of node:crypto behind the hash interface the AWS SDK's SigV4 signer takes
 * (`new Sha256(secret?)`, `update`, `digest`): what @smithy/hash-node does, without another dependency.
 *
 * @example
 * ```ts
 * const signer = new SignatureV4({ credentials, region, service: 'execute-api', sha256: Sha256 });
 * ```
 */
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';

type SourceData = string | ArrayBuffer | ArrayBufferView;

const bytesOf = (data: SourceData) =>
  typeof data === 'string'
    ? data
    : ArrayBuffer.isView(data)
      ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
      : Buffer.from(data);

export class Sha256 {
  readonly #hash: Hash | Hmac;

  /** A plain hash, or an HMAC keyed with `secret`. */
  constructor(secret?: SourceData) {
    this.#hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytesOf(secret));
  }

  update(data: SourceData): void {
    this.#hash.update(bytesOf(data));
  }

  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.#hash.digest());
  }
}
