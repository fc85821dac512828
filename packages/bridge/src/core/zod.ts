/**
 * zod for the code the Lambda functions bundle: `zod/mini`, the functional API of the same library
 * (same core, issues and `toJSONSchema`) that a bundler can tree-shake, where classic zod's methods
 * carry the whole library into every bundle (docs/benchmarks.md, "The bundle slimming work, zod/mini").
 *
 * Import it as `import * as z from '../zod.ts'`. Classic zod loads its English messages when
 * imported; zod/mini loads none, so this module does, and the issues keep the same wording.
 * Tools that are not bundled (the simulator, the CLI, packages/local/src) may keep classic zod: both APIs
 * build the same core schemas, so each composes with the other.
 */
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

z.config(en());

export * from 'zod/mini';

/**
 * A copy of `schema` described as `description`: what classic zod's `.describe()` makes, so the
 * generated JSON Schema carries the description on this use only, not on every use of `schema`.
 */
export function described<T extends z.ZodMiniType>(schema: T, description: string): T {
  return withMeta(schema, { description });
}

/** A copy of `schema` with `metadata` in the global registry, as classic zod's `.meta()` makes. */
export function withMeta<T extends z.ZodMiniType>(schema: T, metadata: z.core.GlobalMeta): T {
  const copy = schema.clone();
  z.globalRegistry.add(copy, metadata);
  return copy;
}
