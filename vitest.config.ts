import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Node's compile cache (V8 code, checked against each module's source) for the test workers and every
// process they start with this environment: the pds command line, the simulator, the local stack, osls.
// Each otherwise compiles the same TypeScript and node_modules from scratch, a second or so at a time.
// NODE_DISABLE_COMPILE_CACHE=1 turns it off (Node's own switch).
if (!process.env.NODE_DISABLE_COMPILE_CACHE) {
  process.env.NODE_COMPILE_CACHE ??= path.join(tmpdir(), 'pds-bridge-compile-cache');
}

export default defineConfig({
  resolve: {
    alias: {
      // The examples import the kit by its package name, as consumers do; in-process tests get the
      // source (tsconfig.json maps it the same way). test/integration/consumer-package.test.ts and the
      // example runs check the built entry that package.json exports.
      'pds-bridge/consumer': fileURLToPath(new URL('./packages/consumer/src/index.ts', import.meta.url)),
    },
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one worker on the 2-core machines CI runs on.
    // Most integration files spend their time waiting on the processes they start (moto, the simulator,
    // the local stack, chromium, npm), so two workers keep both cores busy: the suite took 411 s with
    // two and 602 s with one on the same idle machine.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // CI machines are shared 2-core boxes running the simulator, the emulator and the code under test
    // at once; one rerun there keeps a rare stall from failing the build. A test that fails twice fails.
    retry: process.env.CI ? 1 : 0,
  },
});
