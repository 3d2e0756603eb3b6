import { execFileSync, spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { accountMetrics, type AccountMetricsOptions } from '../../src/metrics/account-metrics.js';
import { createMetrics, type ScrapeSources } from '../../src/metrics/metrics.js';
import { startWorkerHttp, type WorkerHttp } from '../../src/metrics/worker-http.js';

const STREAMS = ['orders', 'stock-counts', 'boms'];
const CALLS = ['order-create', 'shipment-create', 'variance'];

/** Accounts whose queues were read from Redis (each scrape of an account reads them once). */
let queueReads = 0;

/** What an account's scrape reads from Redis: an idle account's, with the holds it has when read. */
function sources(holds: () => { paused?: string; call?: string } | undefined): ScrapeSources {
  const states = (names: string[]) => async () => STREAMS.flatMap((stream) => names.map((state) => ({ stream, state, count: 0 })));
  return {
    queueCounts: async () => {
      queueReads++;
      return states(['waiting', 'active', 'delayed', 'failed', 'completed'])();
    },
    intakeCounts: states(['waiting', 'active', 'delayed', 'failed']),
    feedLag: async () => STREAMS.map((stream) => ({ stream, seconds: 3 })),
    feedLagging: async () => STREAMS.map((stream) => ({ stream, seconds: 3 })),
    holds: async () => {
      const held = holds() ?? {};
      return {
        streams: STREAMS.map((stream) => ({ stream, paused: stream === held.paused, refusals: stream === held.paused ? 5 : 0 })),
        outage: { open: false, since: null },
        calls: CALLS.map((call) => ({ call, held: call === held.call, since: null, opened: call === held.call ? 1 : 0 })),
      };
    },
    redisMemory: async () => ({ usedBytes: 1000, maxBytes: 4000 }),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const name = (i: number) => `a${String(i).padStart(3, '0')}`;

/** 200 accounts of one worker process, each with its own registry as the worker makes them (labelled `account`). */
function accounts(held: Record<string, { paused?: string; call?: string }>) {
  return Array.from({ length: 200 }, (_, i) => {
    const metrics = createMetrics({ sources: sources(() => held[name(i)]), defaultMetrics: false, labels: { account: name(i) } });
    for (const outcome of ['synced', 'failed']) metrics.jobFinished('orders', outcome, 0.1);
    return { name: name(i), metrics, registry: metrics.registry };
  });
}

describe('/metrics of a worker with many accounts', () => {
  let http: WorkerHttp | undefined;
  afterEach(async () => {
    await http?.close();
    http = undefined;
  });

  async function serve(running: ReturnType<typeof accounts>, o: Partial<AccountMetricsOptions> = {}) {
    const metrics = accountMetrics({ accounts: () => running, named: [], lagSeconds: 600, ...o });
    http = await startWorkerHttp({ host: '127.0.0.1', port: 0, registry: metrics, readiness: [] });
    const get = async (path = '') => {
      const res = await fetch(`${http!.url}/metrics${path}`);
      return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
    };
    return { metrics, get };
  }

  const series = (text: string) => text.split('\n').filter((l) => l.startsWith('isync_'));
  const accountsIn = (text: string) => new Set(series(text).flatMap((l) => /account="([^"]+)"/.exec(l)?.[1] ?? []));

  it('has the totals and the series of only the accounts in trouble, however many are well', async () => {
    const running = accounts({ a007: { paused: 'orders' }, a133: { call: 'variance' } });
    const { get } = await serve(running);
    // After a first scrape, a job of a042 fails for good: a count that rises, as IsyncJobsFailing's increase() sees it.
    await get();
    running[42]!.metrics.jobFinished('boms', 'failed', 2);
    const { status, text } = await get();
    expect(status).toBe(200);
    expect([...accountsIn(text)].sort()).toEqual(['a007', 'a042', 'a133']);
    // The totals, without `account`: counts summed over the 200 accounts, states and times their largest.
    expect(text).toContain('isync_jobs_total{stream="orders",outcome="synced"} 200');
    expect(text).toContain('isync_jobs_total{stream="boms",outcome="failed"} 1');
    expect(text).toContain('isync_stream_paused{stream="orders"} 1');
    expect(text).toContain('isync_stream_paused{stream="boms"} 0');
    expect(text).toContain('isync_call_held{call="variance"} 1');
    expect(text).toContain('isync_redis_memory_max_bytes 4000');
    expect(text).toContain('isync_feed_lag_seconds{stream="orders"} 3');
    expect(text).toContain('isync_job_duration_seconds_count{stream="orders",outcome="synced"} 200');
    // The accounts in trouble, each in full, and why they are there.
    expect(text).toContain('isync_stream_paused{stream="orders",account="a007"} 1');
    expect(text).toContain('isync_queue_jobs{stream="boms",state="waiting",account="a133"} 0');
    expect(text).toContain('isync_jobs_total{stream="boms",outcome="failed",account="a042"} 1');
    expect(text).toContain('isync_account_trouble{account="a007",reason="stream-paused"} 1');
    expect(text).toContain('isync_account_trouble{account="a042",reason="jobs-failing"} 1');
    expect(text).toContain('isync_account_trouble{account="a133",reason="call-held"} 1');
    expect(text).toContain('isync_accounts{state="running"} 200');
    expect(text).toContain('isync_accounts{state="troubled"} 3');
    // Bounded: the totals and 3 accounts, not 200 (an account has 80 series here; 200 of them would be 16,000).
    expect(series(text).length).toBeLessThan(6 * 80);
    const types = text.split('\n').filter((l) => l.startsWith('# TYPE '));
    expect(new Set(types).size).toBe(types.length);
  });

  it('shows an account named in METRICS_ACCOUNTS, and every one with *', async () => {
    const running = accounts({});
    expect([...accountsIn((await (await serve(running, { named: ['a150', 'gone'] })).get()).text)]).toEqual(['a150']);
    await http!.close();
    expect(accountsIn((await (await serve(running, { named: '*' })).get()).text).size).toBe(200);
  });

  it("answers one account's full series by name, and 404 naming an account it does not run", async () => {
    const { get } = await serve(accounts({}));
    const one = await get('?account=a099');
    expect(one.status).toBe(200);
    expect(one.type).toContain('text/plain');
    expect(one.text).toContain('isync_jobs_total{stream="orders",outcome="synced",account="a099"} 1');
    expect(one.text).toContain('isync_call_held{call="variance",account="a099"} 0');
    expect([...accountsIn(one.text)]).toEqual(['a099']);
    const none = await get('?account=nope');
    expect(none.status).toBe(404);
    expect(none.text).toBe(
      'no account "nope" in this worker: /metrics?account=NAME takes the name of an account of ACCOUNTS_FILE (`accounts list`)\n',
    );
  });

  it("keeps a stopped account's counts in the totals, so that no total goes down", async () => {
    const running = accounts({});
    const { metrics, get } = await serve(running);
    expect((await get()).text).toContain('isync_jobs_total{stream="orders",outcome="failed"} 200');
    const [gone] = running.splice(0, 1);
    await metrics.retire(gone!.registry);
    const text = (await get()).text;
    expect(text).toContain('isync_jobs_total{stream="orders",outcome="failed"} 200');
    expect(text).toContain('isync_accounts{state="running"} 199');
  });

  it('reads from Redis at most readsPerScrape accounts a scrape (and those shown), each in turn', async () => {
    const held: Record<string, { paused?: string }> = {};
    const { get } = await serve(accounts(held), { readsPerScrape: 50, named: ['a150'] });
    await get();
    queueReads = 0;
    await get();
    expect(queueReads).toBeLessThanOrEqual(51);
    // A stream paused now shows within 200 / 50 scrapes, then its account is read at every scrape.
    held.a123 = { paused: 'boms' };
    let scrapes = 0;
    let text = '';
    while (!text.includes('account="a123"') && scrapes < 5) {
      // One read of an account's holds serves 500 ms of scrapes (src/metrics/hold-gauges.ts).
      await sleep(600);
      text = (await get()).text;
      scrapes++;
    }
    expect(text).toContain('isync_stream_paused{stream="boms",account="a123"} 1');
    expect(scrapes).toBeLessThanOrEqual(4);
    delete held.a123;
    await sleep(600);
    // Read again at once (it is shown): no longer paused, though still shown for the hour its trouble lingers.
    expect((await get()).text).toContain('isync_stream_paused{stream="boms",account="a123"} 0');
  });

  it('is valid Prometheus exposition (promtool check metrics, when promtool is installed)', async () => {
    const running = accounts({ a001: { paused: 'boms' } });
    const { get } = await serve(running, { named: ['a002'] });
    const { text } = await get();
    let promtool: string | undefined;
    try {
      promtool = execFileSync('which', ['promtool'], { encoding: 'utf8' }).trim();
    } catch {
      promtool = undefined;
    }
    if (!promtool) return;
    // Exit 0, or only the lint remarks of prom-client's own process series (nodejs_active_handles_total is a gauge): a
    // text that does not parse is "error while linting".
    const run = spawnSync(promtool, ['check', 'metrics'], { input: text, encoding: 'utf8' });
    const remarks = `${run.stdout}${run.stderr}`.split('\n').filter((l) => l.trim() !== '');
    expect(remarks.filter((l) => !l.startsWith('nodejs_'))).toEqual([]);
    expect(run.status === 0 || remarks.length > 0).toBe(true);
  });
});
