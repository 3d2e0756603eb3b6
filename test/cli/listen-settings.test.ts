import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSecret } from '../ingest/push-sender.js';
import { cliInProcess } from './cli-in-process.js';
import { startStack, type Stack } from './stack.js';

/** A port another process holds, as a second worker on the default port meets it. */
async function takenPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, server };
}

describe('a listening setting whose port is taken', () => {
  let stack: Stack;
  let taken: { port: number; server: Server };
  let env: Record<string, string>;
  beforeAll(async () => {
    stack = await startStack({}, 'listen');
    taken = await takenPort();
    const { UPSTREAM_URL: _u, UPSTREAM_TOKEN: _t, ...noFeed } = stack.env;
    env = { ...noFeed, INGEST_SECRET: newSecret() };
  });
  afterAll(async () => {
    taken?.server.close();
    await stack?.close();
  });

  const inUse = (setting: string) => `${setting}: 127.0.0.1:${taken.port} is in use by another process`;

  it("ends the worker with exit 2 naming WORKER_HTTP_PORT, not as a run's failure", async () => {
    const r = await cliInProcess(['worker'], { ...env, WORKER_HTTP_PORT: String(taken.port) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${inUse('WORKER_HTTP_PORT')} (another worker, receiver or dashboard here?); set WORKER_HTTP_PORT`);
    expect(r.stderr).toContain('0 turns the endpoints off');
    expect(r.stderr).not.toContain('EADDRINUSE');
  }, 60_000);

  it("names INGEST_PORT for the worker's receiver", async () => {
    const r = await cliInProcess(['worker'], { ...env, WORKER_HTTP_PORT: '0', INGEST_PORT: String(taken.port) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(inUse('INGEST_PORT'));
  }, 60_000);

  it('names INGEST_PORT, or --port when given, for receive', async () => {
    const fromEnv = await cliInProcess(['receive'], { ...env, INGEST_PORT: String(taken.port) });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toContain(inUse('INGEST_PORT'));
    const fromFlag = await cliInProcess(['receive', '--port', String(taken.port)], env);
    expect(fromFlag.code).toBe(2);
    expect(fromFlag.stderr).toContain(inUse('--port'));
  }, 60_000);

  it("names the dashboard's --port", async () => {
    const r = await cliInProcess(['dashboard', '--no-auth', '--port', String(taken.port)], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${inUse('--port')} (another worker, receiver or dashboard here?); set --port to a free port (0 picks a free one)`,
    );
  }, 60_000);
});
