import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { intakeQueueName } from '../../src/queue/intake-queue.js';
import { connect, deletePrefix, redisUrl, uniquePrefix } from '../helpers/redis.js';
import { baseEnv, collect, runCli, spawnCli } from '../cli/run-cli.js';
import { seedFailedBatch, seedWaitingBatch } from '../cli/seed-jobs.js';
import { eventually, freePort } from '../cli/worker-process.js';
import { STREAMS } from '../../jobs/kinds.js';

const env = () => ({ ...baseEnv(), REDIS_URL: redisUrl(), QUEUE_PREFIX: uniquePrefix('dash') });

describe.concurrent('the dashboard command', () => {
  it('refuses to start without DASHBOARD_USER and DASHBOARD_PASSWORD, with exit 2', async () => {
    const r = await runCli(['dashboard', '--port', '0'], env());
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('DASHBOARD_USER and DASHBOARD_PASSWORD are required for the dashboard (or --no-auth on 127.0.0.1)');
  });

  it('refuses --no-auth on an address other machines can reach, with exit 2', async () => {
    const r = await runCli(['dashboard', '--no-auth', '--host', '0.0.0.0', '--port', '0'], env());
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--no-auth is allowed on a loopback host only, not 0.0.0.0');
  });

  it('refuses a password under 12 characters on an address other machines can reach, with exit 2 and one line', async () => {
    const r = await runCli(['dashboard', '--host', '0.0.0.0', '--port', '0'], {
      ...env(),
      DASHBOARD_USER: 'ops',
      DASHBOARD_PASSWORD: 'eleven-char',
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'DASHBOARD_PASSWORD: must be at least 12 characters when the dashboard listens on 0.0.0.0, where other machines can reach it (a shorter one is allowed on a loopback host only)\n',
    );
  });

  it('refuses a DASHBOARD_PUBLIC_URL that is more than an origin, with exit 2', async () => {
    const r = await runCli(['dashboard', '--port', '0'], {
      ...env(),
      DASHBOARD_USER: 'ops',
      DASHBOARD_PASSWORD: 'pw-123456',
      DASHBOARD_PUBLIC_URL: 'https://ops.example.com/isync',
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'DASHBOARD_PUBLIC_URL must be an origin only, such as https://ops.example.com (the dashboard is served at the root)',
    );
  });

  it('keeps pages and the API behind the login, and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const child = spawnCli(['dashboard', '--port', String(port)], { ...env(), DASHBOARD_USER: 'ops', DASHBOARD_PASSWORD: 'pw-123456' });
    const done = collect(child);
    const base = `http://127.0.0.1:${port}`;
    await eventually(async () => (await fetch(`${base}/login`).catch(() => undefined))?.status === 200, 30_000, 'the dashboard');
    const page = await fetch(`${base}/`, { redirect: 'manual', headers: { accept: 'text/html' } });
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/login?next=%2F');
    const api = await fetch(`${base}/api/status`);
    expect(api.status).toBe(401);
    const board = await fetch(`${base}/queues/api/queues`);
    expect(board.status).toBe(401);
    const retry = await fetch(`${base}/retry-group`, {
      method: 'POST',
      body: new URLSearchParams({ stream: 'orders', code: 'X', reason: 'y' }),
    });
    expect(retry.status).toBe(401);
    child.kill('SIGTERM');
    const r = await done;
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Dashboard: ${base}/ (log in as ops)`);
    expect(r.stdout).not.toContain('pw-123456');
  });

  it('serves without a login on 127.0.0.1 with --no-auth', async () => {
    const port = await freePort();
    const child = spawnCli(['dashboard', '--no-auth', '--port', String(port)], env());
    const done = collect(child);
    const base = `http://127.0.0.1:${port}`;
    await eventually(async () => (await fetch(`${base}/`).catch(() => undefined))?.status === 200, 30_000, 'the dashboard');
    const status = (await (await fetch(`${base}/api/status`)).json()) as { streams: Array<{ stream: string }> };
    expect(status.streams.map((s) => s.stream)).toEqual(STREAMS);
    child.kill('SIGINT');
    expect((await done).code).toBe(0);
  });

  it('shows import batches: counts on the overview, the intake queues on the board, a batch page, and retries a failed group', async () => {
    const e = env();
    const redis = connect();
    const intake = new Queue(intakeQueueName('stock-counts'), { connection: redis, prefix: e.QUEUE_PREFIX });
    const port = await freePort();
    const child = spawnCli(['dashboard', '--no-auth', '--port', String(port)], e);
    const done = collect(child);
    try {
      const failedId = await seedFailedBatch(redis, e.QUEUE_PREFIX, 'stock-counts');
      await seedWaitingBatch(redis, e.QUEUE_PREFIX);
      const base = `http://127.0.0.1:${port}`;
      await eventually(async () => (await fetch(`${base}/`).catch(() => undefined))?.status === 200, 30_000, 'the dashboard');

      const status = (await (await fetch(`${base}/api/status`)).json()) as {
        streams: Array<{ stream: string; intake: unknown }>;
        failedGroups: Array<{ stream: string; code: string; reason: string; count: number; examples: string[]; batch: boolean }>;
      };
      expect(status.streams.find((s) => s.stream === 'stock-counts')?.intake).toEqual({ waiting: 1, active: 0, delayed: 0, failed: 1 });
      const overview = await (await fetch(`${base}/`)).text();
      expect(overview).toContain(
        '<th title="imported records not yet jobs: a worker turns each batch into one job per record">import batches</th>',
      );
      expect(overview).toContain(
        '<td class="batches"><a href="/queues/queue/stock-counts-intake">1 waiting, <span class="bad">1 failed</span></a></td>',
      );
      expect(overview).toMatch(/<td class="reason">import batch: not a batch of records \(items: [^<]*<\/td><td class="n">1<\/td>/);
      expect(overview).toContain(`<a href="/jobs/${failedId}">${failedId}</a>`);

      // No scheduler on the control queue (no worker set one up): no worker is meant to take it, so it is not shown.
      const board = (await (await fetch(`${base}/queues/api/queues`)).json()) as { queues: Array<{ name: string }> };
      expect(board.queues.map((q) => q.name).sort()).toEqual([
        'boms',
        'boms-intake',
        'orders',
        'orders-intake',
        'stock-counts',
        'stock-counts-intake',
      ]);
      // The board shows what a batch holds rather than every record's text; a damaged one as it is.
      const listed = async (status: string) => {
        const res = (await (
          await fetch(`${base}/queues/api/queues?activeQueue=stock-counts-intake&status=${status}&page=1&jobsPerPage=10`)
        ).json()) as {
          queues: Array<{ name: string; jobs: Array<{ id: string; data: unknown }> }>;
        };
        return res.queues.find((q) => q.name === 'stock-counts-intake')!.jobs;
      };
      expect((await listed('waiting')).map((j) => j.data)).toEqual([
        {
          stream: 'stock-counts',
          records: 1,
          firstLine: 1,
          lastLine: 1,
          firstRecordIds: [expect.stringMatching(/^stock-counts-CNT-1-/)],
          items: '1 record, not shown here: each becomes a stock-counts job',
        },
      ]);
      expect((await listed('failed')).map((j) => j.data)).toEqual([
        { stream: 'stock-counts', source: 'import', firstLine: 1, lastLine: 3, items: 'nope' },
      ]);

      const jobPage = await (await fetch(`${base}/jobs/${failedId}`)).text();
      expect(jobPage).toContain('<span id="state" class="badge bad">failed</span>');
      expect(jobPage).toContain('<h2>Import batch</h2>');
      expect(jobPage).toContain('[BAD_BATCH] intake job');
      expect(jobPage).toContain('<a href="/queues/queue/stock-counts-intake">All stock-counts import batches</a>');

      // A damaged batch gets no "Retry this group" button (its hint: remove it and import again), but what helps is said;
      // the route still takes the form (a person who repaired the batch's data by hand).
      expect(overview).not.toContain('<input type="hidden" name="batch" value="true"/>');
      expect(overview).toContain('remove it and import the file again');
      const group = status.failedGroups.find((g) => g.batch);
      expect(group).toMatchObject({ stream: 'stock-counts', code: 'BAD_BATCH', count: 1, examples: [failedId] });
      const retry = await fetch(`${base}/retry-group`, {
        method: 'POST',
        body: new URLSearchParams({ stream: 'stock-counts', code: 'BAD_BATCH', reason: group!.reason, batch: 'true' }),
        redirect: 'manual',
      });
      expect(retry.status).toBe(303);
      expect(decodeURIComponent(retry.headers.get('location') ?? '')).toBe('/?flash=Retried 1 stock-counts job failed with [BAD_BATCH].');
      expect(await (await intake.getJob(failedId))?.getState()).toBe('waiting');
    } finally {
      child.kill('SIGINT');
      await done;
      await intake.close();
      await deletePrefix(redis, e.QUEUE_PREFIX);
      redis.disconnect();
    }
  });
});
