import { describe, expect, it } from 'vitest';
import type { AccountSummary, StreamSummary } from '../../src/ops/account-summary.js';
import { byNeed, countByState, stateOf } from '../../src/ops/account-triage.js';

const stream = (s: Partial<StreamSummary> = {}): StreamSummary => ({
  stream: 'orders',
  waiting: 0,
  active: 0,
  failed: 0,
  completed: 0,
  completedLastHour: 0,
  paused: null,
  behindSeconds: null,
  lastPollAt: null,
  ...s,
});
const account = (name: string, o: Partial<AccountSummary> = {}): AccountSummary => ({
  account: name,
  prefix: `{p-${name}}`,
  streams: [stream()],
  outage: null,
  heldCalls: [],
  ...o,
});

describe('the order of the all-accounts page', () => {
  const held = (since: string) => ({ call: 'order-create', label: 'order create', since });
  const all = [
    account('zed'),
    account('busy', { streams: [stream({ waiting: 3 })] }),
    account('call-late', { heldCalls: [held('2026-12-06T08:00:00.000Z')] }),
    account('call-early', { heldCalls: [held('2026-12-06T07:00:00.000Z')] }),
    account('down', { outage: { since: '2026-12-06T07:00:00.000Z', reason: 'HTTP 503' } }),
    account('few-failed', { streams: [stream({ failed: 1 })] }),
    account('many-failed', { streams: [stream({ failed: 9 })] }),
    // Paused and failing both: its paused stream is what counts first.
    account('paused', { streams: [stream({ failed: 2, paused: { since: '2026-12-06T07:00:00.000Z', reason: null } })] }),
    account('alpha'),
  ];

  it('takes a paused stream, then failed jobs (the most first), the service down, a held call (the oldest first), then the rest by name', () => {
    expect(byNeed(all).map((a) => a.account)).toEqual([
      'paused',
      'many-failed',
      'few-failed',
      'down',
      'call-early',
      'call-late',
      'alpha',
      'busy',
      'zed',
    ]);
  });

  it('counts each account once, by its most pressing state', () => {
    expect(stateOf(all[7]!)).toBe('paused');
    expect(countByState(all)).toEqual({ paused: 1, failed: 2, outage: 1, 'held-call': 2, working: 1, idle: 2 });
  });
});
