import { describe, expect, it } from 'vitest';
import { baseEnv, collect, spawnCli } from './run-cli.js';
import { eventually, freePort } from './worker-process.js';

describe('sandbox command', () => {
  it('serves the demo account with the given credentials until SIGTERM, then exits 0', async () => {
    const port = await freePort();
    const child = spawnCli(['sandbox', '--port', String(port)], { ...baseEnv(), INVENTORY_API_KEY: 'k-1', INVENTORY_API_SECRET: 's-secret-1' });
    const done = collect(child);
    const url = `http://127.0.0.1:${port}/demo/api/facility`;
    const auth = `Basic ${Buffer.from('k-1:s-secret-1').toString('base64')}`;
    await eventually(async () => (await fetch(url, { headers: { authorization: auth } }).catch(() => undefined))?.status === 200, 30_000, 'the sandbox');
    expect((await fetch(url)).status).toBe(401);
    child.kill('SIGTERM');
    const r = await done;
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`inventory-sync sandbox listening on http://127.0.0.1:${port}: API http://127.0.0.1:${port}/demo/api/`);
    expect(r.stdout).toContain('INVENTORY_API_SECRET=<your INVENTORY_API_SECRET>');
    expect(r.stdout).not.toContain('s-secret-1');
  });

  it('takes --key, --secret and the data file\'s own account', async () => {
    const port = await freePort();
    const { mkdtemp, writeFile } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const file = `${await mkdtemp(`${tmpdir()}/isync-sb-`)}/data.json`;
    await writeFile(file, JSON.stringify({ account: 'acme', facilities: [], products: [] }));
    const child = spawnCli(['sandbox', '--port', String(port), '--data', file, '--key', 'cli-key', '--secret', 'cli-secret-9'], baseEnv());
    const done = collect(child);
    const url = `http://127.0.0.1:${port}/acme/api/facility`;
    const auth = `Basic ${Buffer.from('cli-key:cli-secret-9').toString('base64')}`;
    await eventually(async () => (await fetch(url, { headers: { authorization: auth } }).catch(() => undefined))?.status === 200, 30_000, 'the sandbox');
    expect((await fetch(url, { headers: { authorization: `Basic ${Buffer.from('demo:demo').toString('base64')}` } })).status).toBe(401);
    child.kill('SIGTERM');
    const r = await done;
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('(account acme');
    expect(r.stdout).toContain('INVENTORY_API_SECRET=<the value of --secret>');
    expect(r.stdout).not.toContain('cli-secret-9');
  });
});
