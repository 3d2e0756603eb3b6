import { describe, expect, it } from 'vitest';
import { accountMetrics } from '../../src/metrics/account-metrics.js';
import { createMetrics } from '../../src/metrics/metrics.js';

describe('accountMetrics', () => {
  it("merges the totals and the shown accounts' registries: one HELP and TYPE per metric, each account apart, the process's unlabelled", async () => {
    const acme = createMetrics({ defaultMetrics: false, labels: { account: 'acme' } });
    const globex = createMetrics({ defaultMetrics: false, labels: { account: 'globex' } });
    acme.jobFinished('orders', 'synced', 0.2);
    acme.jobFinished('orders', 'synced', 0.3);
    globex.jobFinished('orders', 'synced', 0.1);
    globex.jobFinished('boms', 'failed', 1);
    const running = [
      { name: 'acme', registry: acme.registry },
      { name: 'globex', registry: globex.registry },
    ];
    const text = await accountMetrics({ accounts: () => running, named: '*', lagSeconds: 600 }).metrics();
    const lines = text.split('\n');
    const types = lines.filter((l) => l.startsWith('# TYPE ')).map((l) => l.split(' ')[2]);
    expect(new Set(types).size).toBe(types.length);
    expect(lines.filter((l) => l.startsWith('# TYPE isync_jobs_total '))).toHaveLength(1);
    // Each account apart, and the deployment's total without `account`.
    expect(lines).toContain('isync_jobs_total{stream="orders",outcome="synced",account="acme"} 2');
    expect(lines).toContain('isync_jobs_total{stream="orders",outcome="synced",account="globex"} 1');
    expect(lines).toContain('isync_jobs_total{stream="boms",outcome="failed",account="globex"} 1');
    expect(lines).toContain('isync_jobs_total{stream="orders",outcome="synced"} 3');
    expect(lines).toContain('isync_job_duration_seconds_count{stream="orders",outcome="synced",account="acme"} 2');
    expect(lines).toContain('isync_job_duration_seconds_count{stream="orders",outcome="synced"} 3');
    // The process's own series once, without an account.
    expect(lines.filter((l) => l.startsWith('process_start_time_seconds '))).toHaveLength(1);
  });

  it("keeps one Redis-writes gauge when an account's registry outlives its turn (each turn watches again), reading the latest watch", async () => {
    const m = createMetrics({ defaultMetrics: false, labels: { account: 'acme' } });
    // Its first turn: Redis takes writes.
    m.watchRedisWrites(() => ({ refusing: false }));
    // Its next turn, in the same process with the same parts (an account that pulls keeps them): Redis refuses since 5 s.
    expect(() => m.watchRedisWrites(() => ({ refusing: true, since: Date.now() - 5_000 }))).not.toThrow();
    const text = await m.registry.metrics();
    expect(text.split('\n').filter((l) => l.startsWith('isync_redis_writes_refused_seconds{'))).toEqual([
      'isync_redis_writes_refused_seconds{account="acme"} 5',
    ]);
  });
});
