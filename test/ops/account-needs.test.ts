import { describe, expect, it } from 'vitest';
import type { AccountGlance, StreamGlance } from '../../src/ops/accounts-glance.js';
import { lastHourOf } from '../../src/ops/accounts-glance.js';
import { byNeed, needCounts, needsOf, stateOf } from '../../src/ops/account-needs.js';

const stream = (s: Partial<StreamGlance> = {}): StreamGlance => ({
  stream: 'orders',
  waiting: 0,
  active: 0,
  failed: 0,
  completed: 0,
  completedLastHour: 0,
  paused: null,
  pullError: null,
  behindSeconds: null,
  laggingSeconds: null,
  lastPollAt: null,
  ...s,
});
const account = (name: string, o: Partial<AccountGlance> = {}): AccountGlance => ({
  account: name,
  prefix: `{p-${name}}`,
  streams: [stream()],
  outage: null,
  heldCalls: [],
  ...o,
});

/** The one order of `status` over many accounts and of the dashboard's all-accounts page (src/ops/account-needs.ts). */
describe('what needs a person, and the order of the accounts', () => {
  const held = { call: 'shipment-create', label: 'shipment create', since: '2026-12-06T07:00:00.000Z' };
  const all = [
    account('zed'),
    account('busy', { streams: [stream({ waiting: 3 })] }),
    account('running', { streams: [stream({ active: 1 })] }),
    account('call', { heldCalls: [held] }),
    account('down', { outage: { since: '2026-12-06T07:00:00.000Z', reason: 'HTTP 503' } }),
    account('few-failed', { streams: [stream({ failed: 1 })] }),
    account('many-failed', { streams: [stream({ failed: 9 })] }),
    // Paused and failing both: its paused stream is what counts first, and two needs before one.
    account('paused', { streams: [stream({ failed: 2, paused: { since: '2026-12-06T07:00:00.000Z', reason: null } })] }),
    account('paused-only', { streams: [stream({ paused: { since: null, reason: 'HTTP 401' } })] }),
    account('pull', { streams: [stream({ pullError: 'HTTP 500 from the feed' })] }),
    account('behind', { streams: [stream({ behindSeconds: 7200, laggingSeconds: 7200 })] }),
    // Caught up a minute ago: behind, but not past its limit; no need.
    account('alpha', { streams: [stream({ behindSeconds: 60 })] }),
  ];

  it('takes a paused stream, failed jobs (the most first), the service down, a held call, a failing pull, a feed behind, then the rest by name', () => {
    expect(byNeed(all).map((a) => a.glance.account)).toEqual([
      'paused',
      'paused-only',
      'many-failed',
      'few-failed',
      'down',
      'call',
      'pull',
      'behind',
      'alpha',
      'busy',
      'running',
      'zed',
    ]);
  });

  it('names each need with the streams it is about, most pressing first', () => {
    expect(needsOf(all[7]!)).toEqual([
      { kind: 'paused', streams: ['orders'] },
      { kind: 'failed', streams: ['orders'] },
    ]);
    expect(needsOf(all[3]!)).toEqual([{ kind: 'held-call', streams: [] }]);
    expect(needsOf(all[11]!)).toEqual([]);
  });

  it('counts each account once, by its most pressing need, else working or idle', () => {
    expect(stateOf(all[7]!)).toBe('paused');
    expect(stateOf(all[2]!)).toBe('working');
    expect(needCounts(byNeed(all))).toEqual({
      accounts: 12,
      needPerson: 8,
      fine: 4,
      by: { paused: 2, failed: 2, outage: 1, 'held-call': 1, pull: 1, behind: 1, working: 2, idle: 2 },
    });
  });
});

describe('jobs completed in the last hour, from BullMQ per-minute counts', () => {
  const now = Date.parse('2026-12-06T08:30:30.000Z');
  it('counts the open minute and the 59 before it, not older ones', () => {
    const open = Date.parse('2026-12-06T08:30:10.000Z');
    // 5 in the open minute (count 12 - prevCount 7); then the minutes before it, newest first.
    const data = Array.from({ length: 70 }, () => '1');
    expect(lastHourOf(['12', String(open), '7'], data, now)).toBe(5 + 59);
    expect(lastHourOf([null, null, null], [], now)).toBe(0);
  });
});
