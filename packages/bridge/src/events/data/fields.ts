/**
 * The field schemas every event family's data shares (texts, counts, the S3 object, a failure's code
 * and reason), and the failure codes of a PDS call both failed events give.
 */
import { once } from '../../core/lazy.ts';
import * as z from '../../core/zod.ts';
import { described } from '../../core/zod.ts';

/**
 * The codes of a PDS call that failed for good, shared by the ingest and publication failures
 * (`pdsFailureCode`, packages/bridge/src/events/failure-codes.ts, picks one); docs/events.md says what each means per flow.
 */
export const PDS_FAILURE_CODES = [
  /** The PDS refused the request (an ingest's file or import, a publication's selection or publication) with a 4xx other than 401/403/429. */
  'rejected',
  /** The PDS refused the bridge's credentials (401/403). */
  'unauthorized',
  /** The PDS answered something the bridge cannot use (an unreadable answer; for an ingest, entries in several gatherings). */
  'invalid-answer',
  /** The bridge refused to send the request it built (a bug: report it). */
  'internal',
] as const;

/** The codes both flows give a permanent PDS failure. */
export type PdsFailureCode = (typeof PDS_FAILURE_CODES)[number];

/** An S3 object that was (or could not be) ingested. */
export interface S3ObjectRef {
  bucket: string;
  key: string;
  versionId?: string;
}

// The descriptions below reach consumers: they are the `description`s of the JSON Schemas in
// schemas/events (npm run schemas). Say what a field means to a reader of the event.
export const nonEmpty = once(() => z.string().check(z.minLength(1)));
export const integer = () => z.number().check(z.int());
export const count = once(() => z.number().check(z.int(), z.gte(0)));
export const httpStatus = once(() => z.number().check(z.int(), z.gte(100), z.lte(599)));
/** An optional string, described. */
export const optionalText = (description: string) => described(z.optional(z.string()), description);

export const s3ObjectRef = once(() => ({
  bucket: described(nonEmpty(), 'The S3 bucket the file was dropped into.'),
  key: described(nonEmpty(), 'The object key of the dropped file, decoded (as S3 lists it).'),
  versionId: described(
    z.optional(nonEmpty()),
    'The version of the object, when the bucket is versioned; absent otherwise.',
  ),
}));

export const pdsStatus = once(() =>
  described(z.optional(httpStatus()), 'HTTP status the PDS answered, when the PDS refused.'),
);
export const reason = once(() =>
  described(
    nonEmpty(),
    'What went wrong and what to do, for people; its wording may change: branch on code.',
  ),
);
/** `code` of a failed event: one of the flow's `codes`, described the same way for every flow. */
export function failureCodeField<const Codes extends readonly [string, ...string[]]>(codes: Codes) {
  return described(
    z.enum(codes),
    'Why, as a stable code (docs/events.md says what to do for each). The set only grows: treat a code you do not know as "rejected".',
  );
}
