/**
 * What every schema group of the HTTP API builds with: the registry type and the text field that
 * refuses empty or ill-formed Unicode with an error naming the field.
 */
import * as z from '../core/zod.ts';

/** Metadata kept for each schema: a component `id` for named ones, JSON Schema keywords for the rest. */
export type SchemaMeta = z.core.JSONSchemaMeta;

/** The registry every named schema of one API instance is registered in. */
export type SchemaRegistry = z.core.$ZodRegistry<SchemaMeta>;

// Text that is not well-formed Unicode (a lone surrogate) can be neither a state key nor a log line:
// refused here, where it enters, rather than failing the publish worker after the PDS call.
export const text = (what: string) =>
  z
    .string({ error: `must be a string (${what})` })
    .check(z.minLength(1, { error: `must not be empty (${what})` }))
    .check(
      z.refine((value) => value.isWellFormed(), {
        error: `must be well-formed Unicode, without lone surrogates (${what})`,
      }),
    );
