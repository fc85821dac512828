/**
 * Temporarily changes process.env for a test and puts every touched variable back afterwards.
 *
 * @example
 * ```ts
 * const restore = setEnv({ AWS_REGION: 'eu-west-1', AWS_PROFILE: undefined });
 * afterAll(restore);
 * ```
 */

/** Sets (or, for `undefined`, deletes) the given variables; returns a function that restores them. */
export function setEnv(vars: Record<string, string | undefined>): () => void {
  const saved = new Map<string, string | undefined>();
  for (const [name, value] of Object.entries(vars)) {
    saved.set(name, process.env[name]);
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  let restored = false;
  return () => {
    if (restored) return;
    restored = true;
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}

/** Runs `fn` with the variables set and restores them afterwards, whether `fn` succeeds or throws. */
export async function withEnv<T>(
  vars: Record<string, string | undefined>,
  fn: () => T | Promise<T>,
): Promise<T> {
  const restore = setEnv(vars);
  try {
    return await fn();
  } finally {
    restore();
  }
}

/**
 * The variables that let a process started with an environment of its own (no `process.env`) share
 * the test run's Node compile cache (vitest.config.ts): only speed, no behaviour.
 *
 * @example
 * ```ts
 * execFile(process.execPath, [BIN, '--help'], { env: { ...compileCacheEnv(), PDS_BASE_URL: url } });
 * ```
 */
export function compileCacheEnv(): Record<string, string> {
  const cache = process.env.NODE_COMPILE_CACHE;
  return cache ? { NODE_COMPILE_CACHE: cache } : {};
}
