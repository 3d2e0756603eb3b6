import { defineConfig } from 'vitest/config';

const BROWSER_TESTS = ['test/dashboard/*-browser.test.ts'];
/** deploy/'s Prometheus rules, Grafana dashboard and Kubernetes manifests: promtool and a Prometheus server (its own setup). */
const DEPLOY_TESTS = ['test/deploy/**/*.test.ts'];
/** Run a second time in the `cluster` project, on a local three-node Redis Cluster, beside its own tests. */
const ON_A_CLUSTER_TOO = [
  'test/jobs/orders/order-sync.test.ts',
  'test/jobs/stock/stock-sync.test.ts',
  'test/jobs/boms/bom-sync.test.ts',
  'test/redis/redis-scripts.test.ts',
  'test/redis/fenced-write.test.ts',
];
/** Run a third time in the `tls` project, on a Redis that speaks TLS only (a private CA) and wants a password. */
const ON_TLS_TOO = ['test/jobs/orders/order-sync.test.ts'];
/** The short chaos run (about 3 minutes): its own step of CI (`npm run test:chaos`), not part of `npm test`. */
const CHAOS = ['test/chaos/chaos-short.test.ts'];

// Not `extends: true`: projects would run the root's global setup again each (and start a Redis each).
// Every file: a connection to the default Redis address fails loudly when the run's Redis is elsewhere.
const common = { testTimeout: 30_000, hookTimeout: 30_000, setupFiles: ['test/setup/run-redis.ts'] };

export default defineConfig({
  test: {
    // Tests share one real Redis and spawn real servers. Most of a file's time is waiting (on a service's latency, a
    // lock, a window, a child process), not computing: four files at once use about 1.4 of the 2 cores on average
    // (2026-12-06: 474 s for the suite, 10 min of CPU; three files at once: 538 s, 1.2 cores). The tests that time
    // requests to the tens of ms run again when they miss (test/client/budget/pulse.test.ts, start-windows.test.ts).
    maxWorkers: 4,
    // In CI a JSON report lets .ci/run print a plain 'N passed, N failed' line.
    reporters: process.env.CI ? ['default', ['json', { outputFile: 'test-results/vitest.json' }]] : ['default'],
    // Redis for every project: REDIS_URL when it answers, else a private redis-server for the run; and dist/ built
    // when a source is newer, for the tests that start the program as a process (test/setup/dist-setup.ts).
    globalSetup: ['test/global-setup.ts', 'test/setup/dist-setup.ts'],
    // Each project's own global setup runs only when one of its files is in the run.
    projects: [
      {
        test: {
          ...common,
          name: 'main',
          // One module graph per worker, not one per file: a file no longer spends a second or two loading the program
          // again. No test of it mocks a module or changes the process's state (env, cwd, timers).
          isolate: false,
          include: ['test/**/*.test.ts'],
          exclude: [
            '**/node_modules/**',
            'test/cluster/**',
            'test/tls/**',
            'test/sentinel/**',
            ...BROWSER_TESTS,
            ...DEPLOY_TESTS,
            ...CHAOS,
          ],
        },
      },
      { test: { ...common, name: 'browser', include: BROWSER_TESTS, globalSetup: ['test/setup/chromium-setup.ts'] } },
      { test: { ...common, name: 'deploy', include: DEPLOY_TESTS, globalSetup: ['test/setup/prometheus-setup.ts'] } },
      {
        test: {
          ...common,
          name: 'cluster',
          include: ['test/cluster/**/*.test.ts', ...ON_A_CLUSTER_TOO],
          globalSetup: ['test/setup/cluster-setup.ts'],
        },
      },
      { test: { ...common, name: 'tls', include: ['test/tls/**/*.test.ts', ...ON_TLS_TOO], globalSetup: ['test/setup/tls-setup.ts'] } },
      { test: { ...common, name: 'chaos', include: CHAOS } },
      { test: { ...common, name: 'sentinel', include: ['test/sentinel/**/*.test.ts'], globalSetup: ['test/setup/sentinel-setup.ts'] } },
    ],
  },
});
