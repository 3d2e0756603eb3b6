import { readFileSync, rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sandboxDefaults } from '../../src/sandbox/sandbox-options.js';
import { baseEnv, runCli } from '../cli/run-cli.js';
import { uniquePrefix } from '../helpers/redis.js';

describe.concurrent('demo', () => {
  describe('when no Redis answers but redis-server is installed', () => {
    it('starts its own, syncs the bundled feed, prints the summary with the bad records and where to look, and exits 0', async () => {
      const prefix = uniquePrefix('demo');
      const r = await runCli(
        ['demo', '--exit', '--dashboard-port', '0'],
        { ...baseEnv(), REDIS_URL: 'redis://127.0.0.1:1', QUEUE_PREFIX: prefix, LOG_LEVEL: 'info' },
        { timeoutMs: 90_000 },
      );
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const out = r.stdout;
      expect(out).toMatch(/Redis: none answered at redis:\/\/127\.0\.0\.1:1; started a private redis-server at redis:\/\/127\.0\.0\.1:\d+/);
      expect(out).toMatch(/Sandbox service .*: http:\/\/127\.0\.0\.1:\d+\/demo\/api\//);
      expect(out).toContain(`; ${sandboxDefaults.profile} profile)`);
      expect(out).toMatch(/Dashboard: http:\/\/127\.0\.0\.1:\d+\//);
      expect(out).toMatch(/Demo synced the bundled feed in \d+\.\d s\./);
      expect(out).toMatch(/orders\s+24\s+1\s+20\s+0\s+3/);
      expect(out).toMatch(/stock-counts\s+4\s+0\s+2\s+1\s+1/);
      expect(out).toMatch(/boms\s+2\s+0\s+2\s+0\s+0/);
      expect(out).toContain('The feed holds 4 bad records on purpose');
      expect(out).toMatch(/orders\s+WEB-1021\s+\[BAD_RECORD\] record WEB-1021: lines\.0\.productId: "MUG-PURPLE"/);
      expect(out).toMatch(/orders\s+WEB-1022\s+\[BAD_RECORD\] record WEB-1022: origin: /);
      expect(out).toMatch(/orders\s+WEB-1023\s+\[BAD_RECORD\] record WEB-1023: lines\.0\.quantity: must be a number/);
      expect(out).toMatch(/stock-counts\s+CNT-2026-11-20-Z99\s+\[BAD_RECORD\] record CNT-2026-11-20-Z99: location: /);
      // Two orders' lives, one snapshot at a time.
      expect(out).toMatch(/placed\s+order WEB-2001: created the order, committed the order/);
      expect(out).toMatch(/second part shipped\s+order WEB-2001: created shipment WEB-2001-F2, shipped WEB-2001-F2, completed the order/);
      expect(out).toMatch(/a mug came back\s+order WEB-2001: restocked return WEB-2001-R1/);
      expect(out).toMatch(/cancelled\s+order WEB-2002: cancelled the order/);
      expect(out).toContain('Everything ended as expected.');
      expect(out).toContain('Where to look next:');
      const logFile = /Logs:\s+(\S+inventory-sync-demo-\d+\.log)/.exec(out)?.[1];
      expect(logFile).toBeDefined();
      // Every line of the demo's log file is JSON, one child logger per job.
      const lines = readFileSync(logFile!, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { jobId?: string; key?: string });
      expect(lines.length).toBeGreaterThan(20);
      expect(lines.find((l) => l.key === 'WEB-1001')?.jobId).toMatch(/^orders-WEB-1001-/);
      rmSync(logFile!);
    }, 100_000);
  });

  describe('when the profile is not one the sandbox has', () => {
    it('says which profiles there are and exits 2', async () => {
      const r = await runCli(['demo', '--exit', '--profile', 'real'], baseEnv());
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('unknown sandbox profile "real": use observed or spec');
    });
  });

  describe('when no Redis answers and redis-server is not installed', () => {
    it('says exactly how to get one and exits 3', async () => {
      const r = await runCli(['demo', '--exit'], { ...baseEnv(), PATH: '/nonexistent', REDIS_URL: 'redis://127.0.0.1:1' });
      expect(r.code).toBe(3);
      expect(r.stderr).toContain('Redis could not be reached at redis://127.0.0.1:1');
      expect(r.stderr).toContain('sudo apt-get install redis-server');
      expect(r.stderr).toContain('brew install redis');
      expect(r.stderr).toContain('set REDIS_URL');
    });
  });
});
