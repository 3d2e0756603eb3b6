import { runCallHold, type CallHoldFigures } from '../call-hold.js';
import type { BenchOptions } from './bench-options.js';
import { median } from './median.js';
import { markdownTable } from './tables.js';

const s1 = (ms: number) => (ms / 1000).toFixed(1);

/** docs/benchmarks.md: a fault held where it happens (issue 45): one call down, then the whole service, `runs` times each. */
export async function callHoldSection(o: BenchOptions, say: (line: string) => void) {
  const seconds = o.quick ? 60 : 120;
  const runs: CallHoldFigures[] = [];
  for (const mode of ['call', 'service'] as const)
    for (let i = 0; i < o.runs; i++) {
      say(`call-hold: ${mode === 'call' ? 'shipment creates' : 'the whole service'} down ${seconds} s, run ${i + 1} of ${o.runs}`);
      const f = await runCallHold({ mode, seconds, log: say });
      say(JSON.stringify(f));
      runs.push(f);
    }
  const row = (f: CallHoldFigures) => [
    f.mode === 'call' ? 'shipment creates' : 'the whole service',
    f.requests,
    f.perMinute,
    f.lastHalfPerMinute,
    f.mode === 'call' ? f.holds : f.outage ? 'outage' : 'none',
    f.variancesDuring,
    f.ordersCreatedDuring,
    s1(f.returnToFirstMs),
    s1(f.returnToAllMs),
    f.notOnce.length ? `${f.notOnce.length} NOT once` : 'all once',
  ];
  const med = (mode: 'call' | 'service', pick: (f: CallHoldFigures) => number) => median(runs.filter((f) => f.mode === mode).map(pick));
  const call = { perMinute: med('call', (f) => f.perMinute), first: med('call', (f) => f.returnToFirstMs) };
  const service = { perMinute: med('service', (f) => f.perMinute), first: med('service', (f) => f.returnToFirstMs) };
  return {
    title: 'A fault held where it happens: requests to a failing call, and the time from its return to the first job through',
    body: [
      '`inventory-sync worker` (a child process, from the sources, `WORKER_CONCURRENCY=8`) syncs orders (polled every second) and stock ' +
        `counts (a cron every 5 s) against the sandbox; ${seconds} s of 503s, on \`POST /api/shipment\` only or on every request, ` +
        'while 40 orders and 12 counts arrive; then the fault ends. "Requests" are those that reached the failing call (every request, ' +
        'for the whole service) while it failed; "holds" the times shipment creates were held; "written meanwhile" what the rest did. ' +
        "Before issue 45 (the issue's own measure, not this bench), 90 s of shipment-create 503s opened the account-wide hold 28 times " +
        'and sent 280 requests to the failing call, ' +
        'and no count was written in the window.',
      '',
      `Command: \`npm run bench -- --only call-hold --runs ${o.runs}\` (one run: \`npx tsx bench/call-hold.ts --mode call|service --seconds ${seconds}\`)`,
      '',
      markdownTable(
        [
          'down',
          'requests',
          'a minute',
          'a minute, last half',
          'holds',
          'variances written meanwhile',
          'orders created meanwhile',
          'return to first job s',
          'return to all orders s',
          'orders',
        ],
        runs.map(row),
      ),
      '',
      `Medians: one call down, **${call.perMinute}** requests a minute to it and the first job through **${s1(call.first)} s** after its ` +
        `return; the whole service down, **${service.perMinute}** requests a minute and the first write **${s1(service.first)} s** after ` +
        'the return (both bounded by the trial or probe interval, `OUTAGE_PROBE_MAX_SECONDS`, 30 s).',
    ],
  };
}
