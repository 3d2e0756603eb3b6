import { createHmac } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAccounts, type AccountConfig } from '../../config/accounts.js';
import { programKinds } from '../../jobs/kinds.js';
import { connectRedis } from '../../src/app/connect-redis.js';
import { readWatchedAccounts, watchAccounts, type AccountsWatch } from '../../src/app/accounts-watch.js';
import { startIngest } from '../../src/app/start-ingest.js';
import type { Receiver } from '../../src/ingest/receiver.js';
import { createLogger } from '../../src/log/logger.js';
import type { RedisConnection } from '../../src/redis/connection.js';
import { captureOut } from '../helpers/out-stream.js';
import { orderRecord } from '../helpers/order-records.js';
import { deletePrefix, redisEnv, uniquePrefix } from '../helpers/redis.js';
import { baseEnv, collect, runCli, spawnCli } from '../cli/run-cli.js';
import { eventually } from '../cli/worker-process.js';
import { newSecret, push, type PushAnswer } from './push-sender.js';

const ACME = newSecret();
const GLOBEX_OLD = newSecret();
const GLOBEX_NEW = newSecret();
const ACME_STORE = 'shpss_acme_0123456789abcdef0123456789abcdef';
const GLOBEX_STORE = 'shpss_globex_0123456789abcdef0123456789abcd';

/** An environment with an ACCOUNTS_FILE written here, on the suite's Redis under a fresh prefix. */
function accountsEnv(name: string, accounts: Record<string, Record<string, string>>, env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'isync-accounts-'));
  const file = join(dir, 'accounts.json');
  writeFileSync(file, JSON.stringify({ accounts }));
  return { ...redisEnv(), QUEUE_PREFIX: uniquePrefix(name), ACCOUNTS_FILE: file, ...env };
}

/** The accounts of such an environment, as the program reads them. */
function deployment(name: string, accounts: Record<string, Record<string, string>>, env: Record<string, string> = {}) {
  return readAccounts(accountsEnv(name, accounts, env), {}, programKinds).accounts;
}

/** A store webhook (Shopify's form): the base64 HMAC of the body, its id in another header. */
async function storePush(url: string, path: string, body: unknown, secret: string): Promise<number> {
  const raw = JSON.stringify(body);
  const res = await fetch(`${url}/ingest/${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-shopify-hmac-sha256': createHmac('sha256', secret).update(raw).digest('base64'),
      'x-shopify-webhook-id': `store-${Math.random()}`,
    },
    body: raw,
  });
  await res.text();
  return res.status;
}

describe('the push receiver of several accounts', () => {
  let redis: RedisConnection;
  const receivers: Receiver[] = [];
  const prefixes: string[] = [];

  /** One receiver (one port) for the accounts, as `receive` and `worker` start it. */
  async function serve(accounts: AccountConfig[], o: { registry?: Registry; log?: ReturnType<typeof captureOut> } = {}) {
    prefixes.push(...accounts.map((a) => a.config.redis.prefix));
    const logger = o.log ? createLogger({ level: 'info', destination: o.log.stream }) : createLogger({ level: 'silent' });
    const r = await startIngest(
      accounts.map((a) => ({ config: a.config })),
      { redis, kinds: programKinds, logger, port: 0, ...(o.registry ? { registry: o.registry } : {}) },
    );
    receivers.push(r);
    return r;
  }

  /** The orderIds of the orders jobs under an account's prefix, sorted. */
  async function ordersOf(account: AccountConfig): Promise<string[]> {
    const q = new Queue('orders', { connection: redis, prefix: account.config.redis.prefix });
    try {
      const jobs = await q.getJobs(['waiting', 'active', 'delayed', 'completed', 'failed', 'prioritized']);
      return jobs.map((j) => (j.data as { record: { orderId: string } }).record.orderId).sort();
    } finally {
      await q.close();
    }
  }

  beforeAll(async () => {
    const { config } = deployment('acc-conn', { any: {} })[0]!;
    redis = await connectRedis(config.redis);
  });
  afterAll(async () => {
    for (const r of receivers) await r.close();
    for (const p of prefixes) await deletePrefix(redis, p);
    redis?.disconnect();
  });

  describe('two accounts, each with its own secrets', () => {
    let acme: AccountConfig;
    let globex: AccountConfig;
    let receiver: Receiver;
    const registry = new Registry();
    const log = captureOut(false);

    beforeAll(async () => {
      const dir = mkdtempSync(join(tmpdir(), 'isync-globex-'));
      const globexSecrets = join(dir, 'ingest-secret');
      // Globex is mid-rotation, from a file: both secrets are taken.
      writeFileSync(globexSecrets, `${GLOBEX_OLD},${GLOBEX_NEW}\n`);
      [acme, globex] = deployment('acc-two', {
        acme: { INGEST_SECRET: ACME, INGEST_HMAC_SECRET: ACME_STORE },
        globex: { INGEST_SECRET_FILE: globexSecrets, INGEST_HMAC_SECRET: GLOBEX_STORE },
      }) as [AccountConfig, AccountConfig];
      receiver = await serve([acme, globex], { registry, log });
    });

    it("stores each account's delivery under that account's prefix", async () => {
      const a = await push(receiver.url, 'acme/orders', orderRecord('ACME-1'), { secrets: [ACME] });
      expect(a.status).toBe(202);
      expect(a.body).toMatchObject({ accepted: true, queued: 1 });
      const g = await push(receiver.url, 'globex/orders', orderRecord('GLOBEX-1'), { secrets: [GLOBEX_OLD] });
      expect(g.status).toBe(202);
      const g2 = await push(receiver.url, 'globex/orders', orderRecord('GLOBEX-2'), { secrets: [GLOBEX_NEW] });
      expect(g2.status).toBe(202);
      expect(acme.config.redis.prefix).not.toBe(globex.config.redis.prefix);
      expect(await ordersOf(acme)).toEqual(['ACME-1']);
      expect(await ordersOf(globex)).toEqual(['GLOBEX-1', 'GLOBEX-2']);
    });

    it('makes two jobs of the same record pushed to both, one under each prefix', async () => {
      const a = await push(receiver.url, 'acme/orders', orderRecord('SAME-1'), { secrets: [ACME], id: 'msg_same' });
      const g = await push(receiver.url, 'globex/orders', orderRecord('SAME-1'), { secrets: [GLOBEX_NEW], id: 'msg_same' });
      // Neither is a duplicate of the other: not the delivery id, not the record's job.
      expect([a.status, g.status]).toEqual([202, 202]);
      expect([a.body.queued, g.body.queued]).toEqual([1, 1]);
      expect(await ordersOf(acme)).toContain('SAME-1');
      expect(await ordersOf(globex)).toContain('SAME-1');
    });

    it("refuses a delivery signed with one account's secret on the other's path (401), and queues nothing", async () => {
      const before = [await ordersOf(acme), await ordersOf(globex)];
      const crossed: PushAnswer[] = [
        await push(receiver.url, 'globex/orders', orderRecord('CROSS-1'), { secrets: [ACME] }),
        await push(receiver.url, 'acme/orders', orderRecord('CROSS-2'), { secrets: [GLOBEX_OLD] }),
        await push(receiver.url, 'acme/orders', orderRecord('CROSS-3'), { secrets: [GLOBEX_NEW] }),
      ];
      for (const answer of crossed) {
        expect(answer.status).toBe(401);
        expect(answer.body).toEqual({ error: 'signature refused', reason: 'webhook-signature matches no secret' });
      }
      // Store webhooks too: each account's INGEST_HMAC_SECRET on its own path only.
      expect(await storePush(receiver.url, 'globex/orders', orderRecord('CROSS-4'), ACME_STORE)).toBe(401);
      expect(await storePush(receiver.url, 'acme/orders', orderRecord('CROSS-5'), GLOBEX_STORE)).toBe(401);
      expect(await storePush(receiver.url, 'acme/orders', orderRecord('STORE-1'), ACME_STORE)).toBe(202);
      expect([await ordersOf(acme), await ordersOf(globex)]).toEqual([[...before[0]!, 'STORE-1'].sort(), before[1]]);
    });

    it('answers an unknown account 404 with one message that names no account, signed or not', async () => {
      const answers = [
        await push(receiver.url, 'initech/orders', orderRecord('NOBODY-1')),
        await push(receiver.url, 'initech/orders', orderRecord('NOBODY-2'), { secrets: [ACME] }),
        await push(receiver.url, 'acm/orders', orderRecord('NOBODY-3'), { secrets: [ACME] }),
        await push(receiver.url, '__proto__/orders', orderRecord('NOBODY-4'), { secrets: [ACME] }),
      ];
      for (const a of answers) {
        expect(a.status).toBe(404);
        expect(a.body).toEqual(answers[0]!.body);
        expect(JSON.stringify(a.body)).not.toMatch(/acme|globex/);
      }
      expect(answers[0]!.body.error).toContain('/ingest/{account}/{stream}');
    });

    it('answers /ingest/{stream} 404, naming the form /ingest/{account}/{stream}', async () => {
      const a = await push(receiver.url, 'orders', orderRecord('NOACCOUNT-1'), { secrets: [ACME] });
      expect(a.status).toBe(404);
      expect(a.body.error).toContain('POST /ingest/{account}/{stream}');
      expect(JSON.stringify(a.body)).not.toMatch(/acme|globex/);
    });

    it('answers an unknown stream of a known account 404 listing the streams', async () => {
      const a = await push(receiver.url, 'acme/invoices', {}, { secrets: [ACME] });
      expect(a.status).toBe(404);
      expect(a.body.streams).toContain('orders');
    });

    it('counts deliveries by account, never by a name it does not serve, and logs no secret', async () => {
      const metrics = await registry.metrics();
      expect(metrics).toMatch(/isync_ingest_deliveries_total\{account="acme",stream="orders",status="202"\} \d+/);
      expect(metrics).toMatch(/isync_ingest_deliveries_total\{account="globex",stream="orders",status="401"\} 2\b/);
      expect(metrics).toMatch(/isync_ingest_records_total\{account="globex",stream="orders",outcome="queued"\} 3/);
      expect(metrics).toContain('account="(unknown)"');
      expect(metrics).not.toMatch(/initech|acm"|__proto__/);
      const text = log.text();
      expect(text).toContain('"account":"globex"');
      for (const s of [ACME, GLOBEX_OLD, GLOBEX_NEW, ACME_STORE, GLOBEX_STORE]) expect(text).not.toContain(s.replace(/^whsec_/, ''));
    });
  });

  describe('one account in ACCOUNTS_FILE', () => {
    it('takes /ingest/{stream} and /ingest/{account}/{stream}, under its prefix', async () => {
      const accounts = deployment('acc-one', { solo: { INGEST_SECRET: ACME } });
      const receiver = await serve(accounts);
      expect((await push(receiver.url, 'orders', orderRecord('SOLO-1'), { secrets: [ACME] })).status).toBe(202);
      expect((await push(receiver.url, 'solo/orders', orderRecord('SOLO-2'), { secrets: [ACME] })).status).toBe(202);
      expect((await push(receiver.url, 'other/orders', orderRecord('SOLO-3'), { secrets: [ACME] })).status).toBe(404);
      expect(accounts[0]!.config.redis.prefix).toMatch(/-solo\}$/);
      expect(await ordersOf(accounts[0]!)).toEqual(['SOLO-1', 'SOLO-2']);
    });
  });

  describe('when one account holds INGEST_MAX_BACKLOG jobs not yet run', () => {
    it('refuses that account (503) and still takes the other', async () => {
      const [full, free] = deployment(
        'acc-backlog',
        { full: { INGEST_SECRET: ACME }, free: { INGEST_SECRET: GLOBEX_NEW } },
        { INGEST_MAX_BACKLOG: '2' },
      ) as [AccountConfig, AccountConfig];
      const receiver = await serve([full, free]);
      const flood = await push(receiver.url, 'full/orders', [orderRecord('FLOOD-1'), orderRecord('FLOOD-2')], { secrets: [ACME] });
      expect(flood.body).toMatchObject({ queued: 2 });
      // The backlog is counted at most once a second: the flood's account is refused once it is seen.
      let refused: PushAnswer | undefined;
      for (let n = 3; !refused && n < 60; n++) {
        const a = await push(receiver.url, 'full/orders', orderRecord(`FLOOD-${n}`), { secrets: [ACME] });
        if (a.status === 503) refused = a;
        else await new Promise((r) => setTimeout(r, 100));
      }
      expect(refused?.body.reason).toMatch(/jobs wait in orders, the most it takes \(INGEST_MAX_BACKLOG\)/);
      expect(refused?.headers.get('retry-after')).toBeTruthy();
      const other = await push(receiver.url, 'free/orders', orderRecord('CALM-1'), { secrets: [GLOBEX_NEW] });
      expect(other.status).toBe(202);
      expect(await ordersOf(free)).toEqual(['CALM-1']);
    });
  });

  describe('when accounts share a push secret (one set in the environment)', () => {
    it('warns at start naming the accounts, never the secret', async () => {
      const log = captureOut(false);
      const accounts = deployment('acc-shared', { north: {}, south: {}, east: { INGEST_SECRET: GLOBEX_NEW } }, { INGEST_SECRET: ACME });
      const receiver = await serve(accounts, { log });
      expect(log.text()).toContain('accounts north and south check pushes with the same secret');
      expect(log.text()).not.toContain('east');
      expect(log.text()).not.toContain(ACME.replace(/^whsec_/, ''));
      // Each account's path still checks with that account's secrets: east does not take the shared one.
      expect((await push(receiver.url, 'east/orders', orderRecord('EAST-1'), { secrets: [ACME] })).status).toBe(401);
    });
  });

  describe('when ACCOUNTS_FILE changes while the receiver runs', () => {
    let watch: AccountsWatch | undefined;
    afterAll(async () => {
      await watch?.close();
    });

    it('serves an account added, answers one removed 404, and keeps its accounts when the file turns wrong', async () => {
      const env = accountsEnv('acc-reload', { acme: { INGEST_SECRET: ACME } });
      const file = env.ACCOUNTS_FILE;
      const read = () => readAccounts(env, {}, programKinds).accounts;
      const rewrite = (accounts: Record<string, Record<string, string>>) => writeFileSync(file, JSON.stringify({ accounts }, null, 1));
      const source = { file, env, kinds: programKinds, needs: {} };
      const first = readWatchedAccounts(source);
      prefixes.push(first.accounts[0]!.config.redis.prefix);
      const log = captureOut(false);
      const logger = createLogger({ level: 'info', destination: log.stream });
      // The file looked at before every push (and by the watch once a minute only: not in this test's time).
      watch = watchAccounts(source, first, { everyMs: 60_000, logger, meanwhile: 'the accounts stay as they were' });
      const receiver = await startIngest(
        first.accounts.map((a) => ({ config: a.config })),
        { redis, kinds: programKinds, logger, port: 0, follow: { watch, lookEveryMs: 0 } },
      );
      receivers.push(receiver);
      expect((await push(receiver.url, 'initech/orders', orderRecord('LATE-0'), { secrets: [GLOBEX_NEW] })).status).toBe(404);

      rewrite({ acme: { INGEST_SECRET: ACME }, initech: { INGEST_SECRET: GLOBEX_NEW } });
      const [acme, initech] = read() as [AccountConfig, AccountConfig];
      prefixes.push(initech.config.redis.prefix);
      expect((await push(receiver.url, 'initech/orders', orderRecord('LATE-1'), { secrets: [GLOBEX_NEW] })).status).toBe(202);
      expect((await push(receiver.url, 'initech/orders', orderRecord('LATE-2'), { secrets: [ACME] })).status).toBe(401);
      expect((await push(receiver.url, 'acme/orders', orderRecord('KEPT-1'), { secrets: [ACME] })).status).toBe(202);
      expect(await ordersOf(initech)).toEqual(['LATE-1']);
      expect(await ordersOf(acme)).toEqual(['KEPT-1']);

      rewrite({ initech: { INGEST_SECRET: GLOBEX_NEW } });
      expect((await push(receiver.url, 'acme/orders', orderRecord('GONE-1'), { secrets: [ACME] })).status).toBe(404);
      // One account left: /ingest/{stream} is its.
      expect((await push(receiver.url, 'orders', orderRecord('LATE-3'), { secrets: [GLOBEX_NEW] })).status).toBe(202);
      expect(await ordersOf(initech)).toEqual(['LATE-1', 'LATE-3']);

      rewrite({ initech: { INGEST_SECRET: GLOBEX_NEW }, hooli: {} });
      expect((await push(receiver.url, 'orders', orderRecord('LATE-5'), { secrets: [GLOBEX_NEW] })).status).toBe(202);
      expect(log.text()).toContain('account \\"hooli\\": INGEST_SECRET: is required to receive pushes');
      writeFileSync(file, '{"accounts": ');
      expect((await push(receiver.url, 'initech/orders', orderRecord('LATE-4'), { secrets: [GLOBEX_NEW] })).status).toBe(202);
      expect(log.text()).toContain('ACCOUNTS_FILE changed but cannot be used');
      expect(log.text()).toMatch(/"added":\["initech"\]/);
      expect(log.text()).toMatch(/"removed":\["acme"\]/);
      for (const secret of [ACME, GLOBEX_NEW]) expect(log.text()).not.toContain(secret.slice('whsec_'.length));
    });
  });

  describe('`receive` with ACCOUNTS_FILE', () => {
    it('serves every account on one port, each under its prefix, one added while it runs too, and stops on SIGTERM', async () => {
      const env = {
        ...baseEnv(),
        LOG_LEVEL: 'info',
        ...accountsEnv('acc-cli', { acme: { INGEST_SECRET: ACME }, globex: { INGEST_SECRET: GLOBEX_NEW } }),
      };
      const [acme, globex] = readAccounts(env, {}, programKinds).accounts as [AccountConfig, AccountConfig];
      prefixes.push(acme.config.redis.prefix, globex.config.redis.prefix);
      const child = spawnCli(['receive', '--port', '0'], env);
      const run = collect(child, { timeoutMs: 60_000 });
      let out = '';
      child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
      await eventually(async () => out.includes('receiver started'), 30_000, 'the receiver to start');
      const started = JSON.parse(out.split('\n').find((l) => l.includes('receiver started'))!) as { url: string; msg: string };
      expect(started.msg).toContain('/ingest/{account}/{stream}');
      expect((await push(started.url, 'acme/orders', orderRecord('CLI-A'), { secrets: [ACME] })).status).toBe(202);
      expect((await push(started.url, 'globex/orders', orderRecord('CLI-G'), { secrets: [GLOBEX_NEW] })).status).toBe(202);
      expect((await push(started.url, 'globex/orders', orderRecord('CLI-X'), { secrets: [ACME] })).status).toBe(401);
      // An account added to the file is served without a restart (the file is looked at once a second).
      writeFileSync(
        env.ACCOUNTS_FILE,
        JSON.stringify({
          accounts: { acme: { INGEST_SECRET: ACME }, globex: { INGEST_SECRET: GLOBEX_NEW }, initech: { INGEST_SECRET: GLOBEX_OLD } },
        }),
      );
      const initech = readAccounts(env, {}, programKinds).accounts[2]!;
      prefixes.push(initech.config.redis.prefix);
      await eventually(
        async () => (await push(started.url, 'initech/orders', orderRecord('CLI-I'), { secrets: [GLOBEX_OLD] })).status === 202,
        10_000,
        'the added account to be served',
      );
      expect(await ordersOf(initech)).toEqual(['CLI-I']);
      child.kill('SIGTERM');
      const r = await run;
      expect(r.code).toBe(0);
      expect(await ordersOf(acme)).toEqual(['CLI-A']);
      expect(await ordersOf(globex)).toEqual(['CLI-G']);
      expect(r.stdout).toContain('"account":"globex"');
      for (const secret of [ACME, GLOBEX_NEW]) expect(r.stdout + r.stderr).not.toContain(secret.slice('whsec_'.length));
    });

    it('exits 2 naming each account without a push secret', async () => {
      const env = { ...baseEnv(), ...accountsEnv('acc-cli-nosecret', { acme: { INGEST_SECRET: ACME }, globex: {}, initech: {} }) };
      const r = await runCli(['receive', '--port', '0'], env);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toEqual([
        'account "globex": INGEST_SECRET: is required to receive pushes (or INGEST_SECRET_FILE; see docs/push.md)',
        'account "initech": INGEST_SECRET: is required to receive pushes (or INGEST_SECRET_FILE; see docs/push.md)',
      ]);
    });
  });
});
