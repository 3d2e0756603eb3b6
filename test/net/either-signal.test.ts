import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { eitherSignal } from '../../src/net/either-signal.js';

describe('eitherSignal', () => {
  it('aborts when any of its signals does, with that reason', () => {
    const [a, b] = [new AbortController(), new AbortController()];
    const either = eitherSignal([a.signal, b.signal]);
    expect(either.signal.aborted).toBe(false);
    b.abort(new Error('account closed'));
    expect(either.signal.aborted).toBe(true);
    expect((either.signal.reason as Error).message).toBe('account closed');
  });

  it('is aborted at once when one of its signals already is', () => {
    const a = new AbortController();
    a.abort('stopped');
    expect(eitherSignal([new AbortController().signal, a.signal]).signal.reason).toBe('stopped');
  });

  it('joins 50 runs at once to one signal with no warning (Node warns past 10 listeners), and releases them all', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const parent = new AbortController();
      const runs = Array.from({ length: 50 }, () => eitherSignal([parent.signal]));
      expect(getEventListeners(parent.signal, 'abort')).toHaveLength(50);
      runs.forEach((r) => r.release());
      await new Promise((r) => setImmediate(r));
      expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
      expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('leaves nothing on its signals once released: a thousand runs add no listener to a signal that lives on', () => {
    const process = new AbortController();
    for (let i = 0; i < 1000; i++) eitherSignal([process.signal]).release();
    expect(getEventListeners(process.signal, 'abort')).toHaveLength(0);
    const held = eitherSignal([process.signal]);
    expect(getEventListeners(process.signal, 'abort')).toHaveLength(1);
    held.release();
    process.abort();
    expect(held.signal.aborted).toBe(false);
  });
});
