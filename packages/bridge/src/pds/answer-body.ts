/**
 * Reading the body of a PDS answer: whole (bounded), an excerpt of an error answer, or drained so its
 * connection can be reused.
 */
import type { Readable } from 'node:stream';

/** The whole answer as text; `undefined` (the body destroyed) past `limit` bytes. */
export async function readAnswer(body: Readable, limit: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    size += buffer.length;
    if (size > limit) {
      body.destroy();
      return undefined;
    }
    chunks.push(buffer);
  }
  // UTF-8, a leading byte order mark dropped (TextDecoder's default, as the answers were read before).
  return new TextDecoder().decode(Buffer.concat(chunks, size));
}

/** Reads an answer to its end and drops it, so its connection can be reused; a failure is dropped too. */
export async function drain(body: Readable): Promise<void> {
  try {
    for await (const _chunk of body) {
      // discarded
    }
  } catch {
    // The status is the answer; a body that breaks only costs the connection.
  }
}

/** Reads at most `limit` bytes of an error answer; a body that breaks only loses the excerpt. */
export async function readExcerpt(body: Readable, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      chunks.push(buffer);
      size += buffer.length;
      if (size >= limit) break;
    }
  } catch {
    // The status already tells what happened.
  }
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
}
