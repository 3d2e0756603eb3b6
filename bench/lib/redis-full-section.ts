import type { RedisFullFigures } from '../redis-full.js';
import { runRedisFull } from '../redis-full.js';
import type { BenchOptions } from './bench-options.js';
import { markdownTable } from './tables.js';

/** Section 12 of docs/benchmarks.md: a full Redis (issue 26). */
export async function redisFullSection(o: BenchOptions, say: (line: string) => void) {
  say('redis-full: worker against a Redis whose maxmemory is reached, held 20 s, then raised');
  const f: RedisFullFigures = await runRedisFull({ holdSeconds: 20, before: 5, during: 10, useDist: false, log: say });
  const reasons = Object.entries(f.byReason).map(([r, n]) => `${n} × \`${r.length > 60 ? `${r.slice(0, 57)}...` : r}\``);
  const met = f.msToFirstOrder < 10_000 && Object.values(f.byReason).every((n) => n <= 2) && f.notOnce.length === 0;
  return {
    title: 'A full Redis: log lines while it refuses writes, and seconds from the raise to work',
    body: [
      '`inventory-sync worker` (a child process, from the sources) syncs orders from a feed server against the sandbox on a private ' +
        `redis-server (noeviction); after ${f.orders - 10} orders, \`CONFIG SET maxmemory\` 256 KB below the memory used makes every ` +
        `write answer OOM; 10 more orders go into the feed; ${f.heldSeconds} s later \`CONFIG SET maxmemory 0\`. Before issue 26 the ` +
        'same outage (25 s) gave 121,652 log lines (about 292,000 a minute) and pulls again about 35 s after the raise.',
      '',
      'Command: `npx tsx bench/redis-full.ts --hold 20` (`npx vitest run test/cli/worker-redis-full.test.ts` runs the same with a 12 s hold)',
      '',
      markdownTable(
        [
          'refused s',
          'log lines',
          'a minute',
          'worker CPU while full',
          'raise to first order s',
          'raise to all 10 s',
          'orders created once',
          '/readyz while full',
          'alerts',
        ],
        [
          [
            f.heldSeconds,
            f.linesWhileFull,
            f.linesPerMinute,
            f.cpuPercentWhileFull === undefined ? 'n/a' : `${f.cpuPercentWhileFull}% of a core`,
            (f.msToFirstOrder / 1000).toFixed(1),
            (f.msToAllOrders / 1000).toFixed(1),
            `${f.orders - f.notOnce.length} of ${f.orders}`,
            f.readyzWhileFull.status,
            f.alerts.length,
          ],
        ],
      ),
      '',
      `Lines while full, by reason: ${reasons.join(', ')}. Work within 10 s of the raise, at most 2 lines per reason, nothing lost or ` +
        `twice: ${met ? 'met' : 'NOT met'}.`,
    ],
  };
}
