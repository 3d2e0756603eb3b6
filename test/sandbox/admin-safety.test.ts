import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sandboxAdminClient } from '../../src/sandbox/admin-client.js';
import { baseEnv, collect, runCli, spawnCli } from '../cli/run-cli.js';
import { eventually, freePort } from '../cli/worker-process.js';
import { basic, useSandbox } from './helpers.js';

/** What the admin surface refuses (issue 13, item 5): file reads, weak credentials off loopback, runaway patterns. */
const t = useSandbox();
const dir = mkdtempSync(join(tmpdir(), 'sandbox-admin-safety-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('when a reset over HTTP names a file', () => {
  it('refuses it without reading it, whatever the file holds', async () => {
    // A file of the right shape would load and be readable through /_admin/state if it were read.
    const file = join(dir, 'planted.json');
    writeFileSync(file, JSON.stringify({ account: 'demo', facilities: [], products: [{ productId: 'PLANTED-1' }] }));
    for (const data of [file, '/etc/passwd', '../../etc/hostname', 'demo.json']) {
      const r = await t.api.post('/_admin/reset', { data });
      expect(r.status, data).toBe(400);
      expect(r.body.msg).toBe(
        "reset: data must be 'demo', 'empty' or the data itself (a JSON object); a file is read only at start (--data FILE)",
      );
    }
    const products = (await t.api.get('/_admin/state')).body.products as Array<{ productId: string }>;
    expect(products.some((p) => p.productId === 'PLANTED-1')).toBe(false);
    expect(products.length).toBe(251);
  });

  it('still takes the named data sets and inline data', async () => {
    expect((await t.api.post('/_admin/reset', { data: 'empty' })).status).toBe(200);
    expect((await t.api.get('/_admin/state')).body.products).toEqual([]);
    expect((await t.api.post('/_admin/reset', { data: { facilities: [], products: [{ productId: 'INLINE-1' }] } })).status).toBe(200);
    expect((await t.api.get('/_admin/state')).body.products.map((p: { productId: string }) => p.productId)).toEqual(['INLINE-1']);
    expect((await t.api.post('/_admin/reset', { data: ['not', 'data'] })).status).toBe(400);
  });
});

describe('when credentials are checked', () => {
  it('refuses a secret that differs in its last character, and takes the scheme in any case', async () => {
    expect((await t.api.get('facility', { auth: basic('demo', 'demx') })).status).toBe(401);
    expect((await t.api.get('/_admin/state', { auth: basic('demo', 'demx') })).status).toBe(401);
    expect((await t.api.get('/_admin/state', { auth: basic('demo', 'demo').replace('Basic', 'basic') })).status).toBe(200);
    expect((await t.api.get('facility', { auth: 'Basic' })).status).toBe(401);
    expect((await t.api.get('facility', { auth: 'Bearer demo:demo' })).status).toBe(401);
  });
});

describe('when a fault rule has a pattern that backtracks catastrophically in a JavaScript regex', () => {
  it('matches it in linear time, so a long path cannot stall the server', async () => {
    // In a process of its own: were the pattern a JavaScript regex, that process would stall, not this one.
    const port = await freePort();
    const child = spawnCli(['sandbox', '--port', String(port), '--data', 'empty'], baseEnv());
    const done = collect(child);
    try {
      const url = `http://127.0.0.1:${port}`;
      const admin = sandboxAdminClient({ url, key: 'demo', secret: 'demo' });
      await eventually(async () => (await admin.health().catch(() => undefined))?.ok === true, 30_000, 'the sandbox');
      await admin.setFaults([{ kind: 'status-503', path: '(a+)+$' }]);
      const get = (path: string) =>
        fetch(`${url}/demo/api/${path}`, { headers: { authorization: basic('demo', 'demo') }, signal: AbortSignal.timeout(5_000) });
      // A backtracking engine takes 2^40 steps on this path: no answer within the 5 s.
      expect((await get(`product/${'a'.repeat(40)}!`)).status).toBe(404);
      expect((await get('product/aaaa')).status).toBe(503);
    } finally {
      child.kill('SIGKILL');
      await done;
    }
  });

  it('refuses a pattern longer than 200 characters or in a syntax it cannot match in linear time', async () => {
    const long = await t.api.post('/_admin/faults', [{ kind: 'status-503', path: 'a'.repeat(201) }]);
    expect(long.status).toBe(400);
    expect(long.body.msg).toBe('faults[0].path: is longer than 200 characters');
    const backref = await t.api.post('/_admin/faults', [{ kind: 'status-503', path: '(a)\\1' }]);
    expect(backref.status).toBe(400);
    expect(backref.body.msg).toMatch(/^faults\[0\]\.path: /);
  });
});

describe('when the sandbox command is asked to listen where others can reach it', () => {
  it('refuses the default demo credentials, with exit 2 and one line', async () => {
    for (const extra of [[], ['--key', 'own-key']]) {
      const r = await runCli(['sandbox', '--host', '0.0.0.0', '--port', '0', ...extra], baseEnv());
      expect(r.code).toBe(2);
      expect(r.stderr.trim()).toBe(
        'the sandbox on 0.0.0.0 needs its own credentials: set --key and --secret (or INVENTORY_API_KEY and INVENTORY_API_SECRET); demo/demo is allowed on a loopback host only',
      );
    }
  });
});
