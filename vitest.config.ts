import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Tests share one real Redis and spawn real servers; keep the 2-core machine responsive.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // In CI a JSON report lets .ci/run print a plain 'N passed, N failed' line.
    reporters: process.env.CI ? ['default', ['json', { outputFile: 'test-results/vitest.json' }]] : ['default'],
    globalSetup: ['test/global-setup.ts'],
  },
});
