import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // CI machines are shared 2-core boxes running the simulator, the emulator and the code under test
    // at once; one rerun there keeps a rare stall from failing the build. A test that fails twice fails.
    retry: process.env.CI ? 1 : 0,
  },
});
