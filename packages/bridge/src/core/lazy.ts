/**
 * Values built the first time they are read, for module-scope zod schemas. zod builds a schema
 * eagerly, and a build is not cheap before V8 has compiled zod's own code; a function uses a few of
 * the schemas the modules it imports define. Built at import, they were about a sixth of a
 * function's cold start (docs/benchmarks.md#cold-start); built on first use, those a function never
 * reads cost nothing.
 *
 * @example
 * ```ts
 * const address = once(() => z.object({ street: z.string() }));
 * export const schemas = lazily({ person: () => z.object({ name: z.string(), address: address() }) });
 * schemas.person.parse(body); // built here, once; `address()` with it
 * ```
 */

/** A function that builds its value at the first call and returns the same value afterwards. */
export function once<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
}

/** An object whose properties are each built, by the matching builder, the first time it is read. */
export function lazily<B extends Record<string, () => unknown>>(
  builders: B,
): { readonly [K in keyof B]: ReturnType<B[K]> } {
  const group = {};
  for (const [key, build] of Object.entries(builders)) {
    Object.defineProperty(group, key, {
      enumerable: true,
      get: once(build),
    });
  }
  return group as { readonly [K in keyof B]: ReturnType<B[K]> };
}
