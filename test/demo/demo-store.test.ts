import { describe, expect, it } from 'vitest';
import { baseEnv, runCli } from '../cli/run-cli.js';
import { uniquePrefix } from '../helpers/redis.js';

// A file of its own: the demo's log file is named by the process, and demo-command.test.ts runs its demos at once.
describe('demo', () => {
  describe('with --store', () => {
    it('shows a sandbox Shopify store feeding the service: lost and late webhooks, the pull finding what they missed', async () => {
      const r = await runCli(
        ['demo', '--exit', '--dashboard-port', '0', '--store'],
        { ...baseEnv(), REDIS_URL: 'redis://127.0.0.1:1', QUEUE_PREFIX: uniquePrefix('demo-store') },
        { timeoutMs: 120_000 },
      );
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toMatch(/A Shopify store \(the sandbox's, http:\/\/127\.0\.0\.1:\d+\): 12 orders live their lives there/);
      expect(r.stdout).toMatch(
        /webhooks: \d+ delivered, [1-9]\d* lost, \d+ sent twice; the pull found [1-9]\d* changes? no webhook brought\./,
      );
      expect(r.stdout).toContain('every order is in the service as the store has it now, each change applied once.');
      expect(r.stdout).toContain('Everything ended as expected.');
    }, 130_000);
  });
});
