import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { liveLives } from '../../src/sandbox/shopify/store-lives.js';
import { orderRecord, syncedOnce } from '../helpers/order-records.js';
import { connect, deletePrefix } from '../helpers/redis.js';
import { storeWorld, type StoreWorld } from '../sources/shopify/store-world.js';
import { checkAgrees, printedCommand, printedCommands, runPrinted } from './printed-commands.js';
import { runCli } from './run-cli.js';
import { SECRETS, startStack, type Stack } from './stack.js';

/**
 * Issue 55: every next step the program prints is a command that runs as printed, in the situation that printed it
 * (or says what to set first), and does what its text says; `check`'s verdict is its exit code. Each case drives the
 * CLI in this process, takes the commands from its output, runs each with the same environment and asserts its exit.
 */

/** An NDJSON file of these records, in a folder of its own. */
function ndjson(records: unknown[]): string {
  const file = join(mkdtempSync(join(tmpdir(), 'isync-hints-')), 'records.ndjson');
  writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return file;
}

/** An order whose one line names a product the demo account lacks: a retry helps once it is there (or mapped). */
const unknownProduct = (id: string) =>
  orderRecord(id, [{ productId: 'MUG-ORANGE', quantity: 1, unitPrice: 9, location: 'Main Warehouse / A-01' }]);
/** An order wrong in itself (no line): no retry can help it. */
const noLines = (id: string) => ({ orderId: id, origin: 'Main Warehouse', lines: [] });

const without = (env: Record<string, string>, ...names: string[]) =>
  Object.fromEntries(Object.entries(env).filter(([k]) => !names.includes(k)));

describe('the commands the CLI prints', () => {
  describe('in the going-live path', () => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack({ orders: [orderRecord('GL-1'), orderRecord('GL-2')] }, 'hints-live');
    });
    afterAll(() => stack?.close());

    it('without a feed: READY with exit 0, "not compared" for the true reason, and a next step that runs as printed', async () => {
      const env = without(stack.env, 'UPSTREAM_URL', 'UPSTREAM_TOKEN');
      const r = await checkAgrees(env);
      expect(r.verdict).toBe('READY');
      expect(r.stdout).toContain('Mapping gaps: not compared: no feed is configured (UPSTREAM_URL), so no records were read');
      // A file's dry run runs here as printed (its placeholder filled).
      const file = await runPrinted(printedCommand(r.stdout, 'import orders <FILE> --dry-run'), env, {
        FILE: ndjson([orderRecord('GL-F1')]),
      });
      expect(file.code, file.stdout + file.stderr).toBe(0);
      expect(file.stdout).toContain('Every record can be synced as planned.');
      // The feed's needs UPSTREAM_URL first, as the line says: without it, exit 2 naming it; with it, it runs.
      const feedRun = printedCommand(r.stdout, 'sync --once --dry-run');
      expect(r.stdout).toContain(`a dry run of the feed, inventory-sync ${feedRun}, needs UPSTREAM_URL set first`);
      const bare = await runPrinted(feedRun, env);
      expect([bare.code, bare.stderr]).toEqual([2, expect.stringContaining('UPSTREAM_URL')]);
      expect((await runPrinted(feedRun, stack.env)).code).toBe(0);
    });

    it('with a feed the account matches: READY, and the dry run it names exits 0', async () => {
      const r = await checkAgrees(stack.env);
      expect(r.verdict).toBe('READY');
      const dry = await runPrinted(printedCommand(r.stdout, 'sync --once --dry-run'), stack.env);
      expect(dry.code, dry.stdout + dry.stderr).toBe(0);
      expect(dry.stdout).toContain('Every record can be synced as planned.');
    });

    it('with a gap: GAPS FOUND with exit 1, and "check again" exits 1 until the gap is mapped, then 0', async () => {
      // No cursor moved so far (check and the dry runs read only): check reads the feed from its start.
      stack.feed.append('orders', [unknownProduct('GL-GAP')]);
      const r = await checkAgrees(stack.env);
      expect(r.verdict).toBe('GAPS FOUND');
      const again = printedCommand(r.stdout, 'check');
      expect((await runPrinted(again, stack.env)).code).toBe(1);
      const mapped = { ...stack.env, MAPPING_FILE: mappingFile('kind,upstream,service\nproduct,MUG-ORANGE,MUG-BLUE\n') };
      expect((await runPrinted(again, mapped)).code).toBe(0);
    });
  });

  describe('when records are bad', () => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack({}, 'hints-bad');
    });
    afterAll(() => stack?.close());

    it('offers jobs retry only where a retry helps, says the rest cannot be helped by one, and each command exits as it says', async () => {
      const file = ndjson([orderRecord('BR-1'), unknownProduct('BR-2'), noLines('BR-3')]);
      const dry = await runCli(['import', 'orders', file, '--dry-run'], stack.env);
      expect(dry.code).toBe(1);
      expect(dry.stdout).toContain('retrying this one cannot help');

      const r = await runCli(['import', 'orders', file, '--process'], stack.env);
      expect(r.code, r.stdout + r.stderr).toBe(1);
      const [show, retry, ...others] = printedCommands(r.stdout.slice(r.stdout.indexOf('See why:')));
      expect(others).toEqual([]);
      expect(show).toMatch(/^jobs show orders-BR-[23]-/);
      expect(retry).toMatch(/^jobs retry orders-BR-2-[0-9a-f]+$/);
      expect(r.stdout).toContain('The other record is wrong in itself: a retry cannot help.');

      // The record wrong in itself: its story says what to do, and offers no retry.
      const wrongId = /orders-BR-3-[0-9a-f]+/.exec(r.stdout)![0];
      const story = await runPrinted(`jobs show ${wrongId}`, stack.env);
      expect(story.code).toBe(0);
      expect(story.stdout).toContain('retrying this one cannot help');
      expect(printedCommands(story.stdout)).toEqual([]);
      expect((await runPrinted(show!, stack.env)).code).toBe(0);

      // The unknown product: after the fix the retry takes, and the next run syncs it.
      const fixed = { ...stack.env, MAPPING_FILE: mappingFile('kind,upstream,service\nproduct,MUG-ORANGE,MUG-BLUE\n') };
      const retried = await runPrinted(retry!, fixed);
      expect(retried.code, retried.stdout + retried.stderr).toBe(0);
      const again = await runCli(['sync', '--once'], fixed);
      expect(again.code, again.stdout).toBe(0);
      expect(syncedOnce(stack.sandbox.admin.state(), ['BR-1', 'BR-2'])).toBe(true);
      // What is left failed is the record wrong in itself: status offers no retry for it, and what it prints runs.
      const status = (await runCli(['status'], stack.env)).stdout;
      const failures = status.slice(status.indexOf('Failed jobs by reason:'));
      expect(failures).toContain('A retry cannot help these');
      expect(printedCommands(failures)).toEqual([`jobs show ${wrongId}`]);
      expect((await runPrinted(`jobs show ${wrongId}`, stack.env)).code).toBe(0);
      // find of it: its story, no retry.
      const found = await runCli(['find', 'BR-3'], stack.env);
      expect(printedCommands(found.stdout)).toEqual(['jobs show <JOB>']);
      expect((await runPrinted('jobs show <JOB>', stack.env, { JOB: wrongId })).code).toBe(0);
    });
  });

  describe('when the key is revoked', () => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack({ orders: [orderRecord('RK-1'), orderRecord('RK-2'), orderRecord('RK-3')] }, 'hints-key');
    });
    afterAll(() => stack?.close());
    afterEach(() => stack.sandbox.admin.setFaults([]));

    it('check: NOT READY with exit 3, and "check again" exits 3 until the key is the account\'s, then 0', async () => {
      stack.sandbox.admin.setCredentials({ key: 'key-2-new', secret: 'secret-2-new-one' });
      try {
        const r = await checkAgrees(stack.env);
        expect(r.verdict).toBe('NOT READY');
        expect(r.stdout).toContain('What to do: Check INVENTORY_API_KEY and INVENTORY_API_SECRET');
        const again = printedCommand(r.stdout, 'check');
        expect((await runPrinted(again, stack.env)).code).toBe(3);
        const fixed = { ...stack.env, INVENTORY_API_KEY: 'key-2-new', INVENTORY_API_SECRET: 'secret-2-new-one' };
        expect((await runPrinted(again, fixed)).code).toBe(0);
      } finally {
        stack.sandbox.admin.reset();
      }
    });

    it('a run the account refuses pauses the stream; "Fix the cause, then: resume" resumes it, and the jobs sync', async () => {
      stack.sandbox.admin.setFaults([{ kind: 'status-401', method: 'POST' }]);
      const env = { ...stack.env, BREAKER_THRESHOLD: '2' };
      const r = await runCli(['sync', '--once'], env);
      expect(r.code, r.stdout + r.stderr).toBe(1);
      expect(r.stdout).toContain('orders: PAUSED since');
      const resume = printedCommand(r.stdout, 'resume');
      // The hint of the refusal, as `jobs show` tells it of a waiting job, names the same step.
      const waiting = /orders-RK-\d-[0-9a-f]+/.exec((await runCli(['jobs', 'list'], env)).stdout)![0];
      const story = await runCli(['jobs', 'show', waiting], env);
      expect(printedCommands(story.stdout.slice(story.stdout.indexOf('What to do:')))).toEqual(['resume']);
      // The status says it too, with the same command.
      expect(printedCommand((await runCli(['status'], env)).stdout, 'resume')).toBe(resume);

      stack.sandbox.admin.setFaults([]);
      const resumed = await runPrinted(resume, env);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stdout).toMatch(/^orders: resumed/);
      const run = await runCli(['sync', '--once'], env);
      expect(run.code, run.stdout).toBe(0);
      expect(syncedOnce(stack.sandbox.admin.state(), ['RK-1', 'RK-2', 'RK-3'])).toBe(true);
    });
  });

  describe('when a call is held', () => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack({ orders: [orderRecord('HC-1'), orderRecord('HC-2')] }, 'hints-held');
    });
    afterAll(() => stack?.close());

    it('says nothing is to be done, check stays READY (exit 0), and the run goes on by itself once the call works', async () => {
      stack.sandbox.admin.setFaults([{ kind: 'status-503', method: 'POST', path: '/api/shipment$' }]);
      const run = runCli(['sync', '--once'], stack.env, { timeoutMs: 90_000 });
      let status = '';
      await expect
        .poll(async () => (status = (await runCli(['status'], stack.env)).stdout).includes('HELD: shipment create'), { timeout: 30_000 })
        .toBe(true);
      expect(status).toContain('goes on by itself once a request of it works');
      // Every command status prints runs as printed.
      for (const cmd of printedCommands(status)) expect((await runPrinted(cmd, stack.env)).code, cmd).toBe(0);
      const waiting = /orders-HC-\d-[0-9a-f]+/.exec((await runCli(['jobs', 'list'], stack.env)).stdout)![0];
      const story = await runCli(['jobs', 'show', waiting], stack.env);
      expect(story.stdout).toContain('What to do: Nothing to do');
      expect(printedCommands(story.stdout)).toEqual([]);
      // check reads only: the service answers its reads, so it is ready.
      expect((await checkAgrees(stack.env)).verdict).toBe('READY');

      stack.sandbox.admin.setFaults([]);
      const ended = await run;
      expect(ended.code, ended.stdout + ended.stderr).toBe(0);
      expect(syncedOnce(stack.sandbox.admin.state(), ['HC-1', 'HC-2'])).toBe(true);
    }, 90_000);
  });

  describe('under ACCOUNTS_FILE with two accounts', () => {
    let stack: Stack;
    let beta: Sandbox;
    let env: Record<string, string>;
    beforeAll(async () => {
      stack = await startStack({}, 'hints-accounts');
      beta = await startSandbox({ port: 0, data: 'demo', key: SECRETS.key, secret: SECRETS.secret });
      const file = join(mkdtempSync(join(tmpdir(), 'isync-hints-accounts-')), 'accounts.json');
      const account = (s: Sandbox) => ({ INVENTORY_BASE_URL: s.url, INVENTORY_ACCOUNT: s.account });
      writeFileSync(file, JSON.stringify({ accounts: { acme: account(stack.sandbox), beta: account(beta) } }));
      env = { ...without(stack.env, 'INVENTORY_BASE_URL', 'INVENTORY_ACCOUNT'), ACCOUNTS_FILE: file };
    });
    afterAll(async () => {
      const redis = connect();
      for (const name of ['acme', 'beta']) await deletePrefix(redis, `{${stack.prefix}-${name}}`);
      redis.disconnect();
      await beta?.close();
      await stack?.close();
    });

    it("a command run with --account prints its commands with it, and each account's part of status its own", async () => {
      const file = ndjson([orderRecord('AC-1'), noLines('AC-2')]);
      const r = await runCli(['--account', 'acme', 'import', 'orders', file, '--process'], env);
      expect(r.code, r.stdout + r.stderr).toBe(1);
      const show = printedCommand(r.stdout, '--account acme jobs show');
      expect((await runPrinted(show, env)).code).toBe(0);
      // Without the account, the same command asks for one (exit 2): the account is what makes it run.
      expect((await runPrinted(show.replace('--account acme ', ''), env)).code).toBe(2);

      expect((await runCli(['--account', 'beta', 'import', 'orders', file, '--process'], env)).code).toBe(1);
      const status = await runCli(['status'], env);
      expect(status.code).toBe(0);
      const at = status.stdout.indexOf('=== account beta');
      for (const [name, part] of [
        ['acme', status.stdout.slice(0, at)],
        ['beta', status.stdout.slice(at)],
      ] as const) {
        const see = printedCommand(part, `--account ${name} jobs show`);
        const id = /orders-AC-2-[0-9a-f]+/.exec(part)![0];
        expect((await runPrinted(see, env, { ID: id })).code, see).toBe(0);
      }
    });
  });

  describe('in the Shopify path', () => {
    let w: StoreWorld;
    beforeAll(async () => {
      w = await storeWorld('hints-store');
      await liveLives(w.store, 2, { from: Date.now() - 3 * 86_400_000 });
    });
    afterAll(() => w?.close());

    it('GAPS FOUND with exit 1 while the webhooks are missing; the subscribing command (with what it needs set) makes it READY', async () => {
      const env = without(w.env, 'INGEST_PUBLIC_URL');
      const r = await checkAgrees(env);
      expect(r.verdict).toBe('GAPS FOUND');
      expect(r.stdout).toMatch(/webhook orders\/create: missing/);
      expect(r.stdout).toContain('To subscribe them: set INGEST_PUBLIC_URL');
      const subscribe = printedCommand(r.stdout, 'check --register-webhooks');
      expect((await runPrinted(subscribe, env)).code).toBe(2);
      const withUrl = { ...env, INGEST_PUBLIC_URL: `http://127.0.0.1:${w.ingestPort}` };
      const done = await checkAgrees(withUrl, ['--register-webhooks']);
      expect(done.verdict).toBe('READY');
      expect(done.stdout).toContain('registered refunds/create: created');
      // Ready, with the store and no feed: the store's dry run, as printed.
      const dry = await runPrinted(printedCommand(done.stdout, 'sync --once --dry-run'), withUrl);
      expect(dry.code, dry.stdout + dry.stderr).toBe(0);
    });

    it("an order's SKU the service lacks: GAPS FOUND with exit 1, never READY above the store's gaps", async () => {
      w.store.admin.orders.place({ lines: [{ sku: 'MUG-ORANGE', quantity: 1, price: '9.00' }], at: Date.now() - 60_000 });
      const r = await checkAgrees({ ...w.env, INGEST_PUBLIC_URL: `http://127.0.0.1:${w.ingestPort}` });
      expect(r.verdict).toBe('GAPS FOUND');
      expect(r.stdout).toContain('SKU MUG-ORANGE: no such product in the service');
      expect(r.stdout).not.toContain('READY');
      expect(printedCommand(r.stdout, 'check')).toBe('check');
    });
  });
});

/** A mapping file of this CSV text, in a folder of its own. */
function mappingFile(csv: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'isync-hints-map-')), 'mapping.csv');
  writeFileSync(file, csv);
  return file;
}
