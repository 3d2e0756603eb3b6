import { afterEach, describe, expect, it } from 'vitest';
import { orderRecord } from '../helpers/order-records.js';
import { spawnCli } from './run-cli.js';
import { startStack, type Stack } from './stack.js';
import { eventually } from './worker-process.js';

/**
 * Issue 48: a command slowed by its budget says so when it first waits: which budget, why, about how long, and the
 * setting that changes it. Each run is stopped once it has said so (the rest is the budget's pace, tested elsewhere).
 */
let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

/** `sync --once` until its stderr says `until`; then stopped (two signals: it need not finish). What it said. */
async function stderrUntil(env: Record<string, string>, until: string): Promise<string> {
  const child = spawnCli(['sync', '--once', '--stream', 'orders'], env);
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    await eventually(async () => stderr.includes(until), 30_000, `"${until}" on stderr:\n${stderr}`);
    // The rest of its paragraph comes in the same write.
    await new Promise((r) => setTimeout(r, 200));
    return stderr;
  } finally {
    child.kill('SIGTERM');
    child.kill('SIGINT');
    await new Promise((r) => child.once('close', r));
  }
}

describe('sync --once on a small budget', () => {
  it('explains its first wait on the post budget, once: the slow start, how long, and INVENTORY_RATE_START_PERCENT', async () => {
    stack = await startStack({ orders: [orderRecord('W-1'), orderRecord('W-2')] }, 'wait-slow');
    const env = { ...stack.env, INVENTORY_POST_PER_MINUTE: '20' };
    const said = await stderrUntil(env, 'Why:');
    expect(said).toMatch(
      /^sync waits for the post budget: about \d+(\.\d)? s for this request, then one request every 6\.1 s \(10 a minute\) across every process of the account\.$/m,
    );
    expect(said).toContain('Why: the slow start.');
    expect(said).toContain('starts at 50% of INVENTORY_POST_PER_MINUTE=20 a minute');
    expect(said).toContain('Setting: INVENTORY_RATE_START_PERCENT=100 starts at the full budget');
    expect(said.match(/waits for the post budget/g)).toHaveLength(1);
  }, 60_000);

  it('names the budget itself when nothing else lowers it, and the setting to raise', async () => {
    stack = await startStack({ orders: [orderRecord('W-3'), orderRecord('W-4')] }, 'wait-full');
    const env = { ...stack.env, INVENTORY_POST_PER_MINUTE: '20', INVENTORY_RATE_START_PERCENT: '100' };
    const said = await stderrUntil(env, 'Why:');
    expect(said).toMatch(
      /^sync waits for the post budget: about \d+(\.\d)? s for this request, then one request every 3\.1 s \(20 a minute\)/m,
    );
    expect(said).toContain(
      'Why: the budget itself, INVENTORY_POST_PER_MINUTE=20 a minute. Setting: raise INVENTORY_POST_PER_MINUTE if the service allows the account more.',
    );
  }, 60_000);
});
