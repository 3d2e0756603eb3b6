import { describe, expect, it } from 'vitest';
import { baseEnv, runCli } from '../cli/run-cli.js';
import { connect, deletePrefix, redisUrl, uniquePrefix } from '../helpers/redis.js';

// A file of its own: the demo's log file is named by the process, and demo-command.test.ts runs its demos at once.
describe('demo', () => {
  describe('with --store', () => {
    it('shows a sandbox Shopify store feeding the service: lost and late webhooks, the pull finding what they missed', async () => {
      // The shared Redis, not a private one: the demo's commands are printed, and they run after it ends.
      const prefix = uniquePrefix('demo-store');
      const env = { ...baseEnv(), REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix };
      const redis = connect();
      try {
        const r = await runCli(['demo', '--exit', '--dashboard-port', '0', '--store'], env, { timeoutMs: 120_000 });
        expect(r.code, r.stdout + r.stderr).toBe(0);
        expect(r.stdout).toMatch(/A Shopify store \(the sandbox's, http:\/\/127\.0\.0\.1:\d+\): 12 orders live their lives there/);
        expect(r.stdout).toMatch(
          /webhooks: \d+ delivered, [1-9]\d* lost, \d+ sent twice; the pull found [1-9]\d* changes? no webhook brought\./,
        );
        expect(r.stdout).toContain('every order is in the service as the store has it now, each change applied once.');
        expect(r.stdout).toContain('Everything ended as expected.');
        // The store's orders are under their own prefix, and the printed command with it shows them.
        expect(r.stdout).toContain(`QUEUE_PREFIX='${prefix}-demo'\n`);
        expect(r.stdout).toContain(`    QUEUE_PREFIX='${prefix}-demo-store' npm run cli -- status\n`);
        const status = await runCli(['status', '--json'], { ...env, QUEUE_PREFIX: `${prefix}-demo-store` });
        expect(status.code, status.stderr).toBe(0);
        const orders = (JSON.parse(status.stdout) as { streams: Array<{ stream: string; counts: { completed: number } }> }).streams.find(
          (s) => s.stream === 'orders',
        );
        expect(orders?.counts.completed).toBeGreaterThan(0);
      } finally {
        for (const p of [`${prefix}-demo`, `${prefix}-demo-store`]) await deletePrefix(redis, p);
        redis.disconnect();
      }
    }, 130_000);
  });
});
