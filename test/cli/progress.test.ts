import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/app/cli-io.js';
import { createProgress } from '../../src/cli/progress.js';
import { runProgress } from '../../src/cli/run-progress.js';
import { captureOut as sink } from '../helpers/out-stream.js';

describe('progress', () => {
  describe('when the output is not a terminal', () => {
    it('writes plain lines, the first at once and the last on stop, without repeating itself', () => {
      const out = sink(false);
      const p = createProgress(out.stream, 'processing');
      p.update(0, 10, '10 pending');
      p.update(4, 10, '6 pending');
      p.update(4, 10, '6 pending');
      p.update(10, 10, '0 pending');
      p.stop();
      expect(out.text()).toBe('processing: 0/10 10 pending\nprocessing: 10/10 0 pending\n');
    });
  });

  describe('when the output is a terminal', () => {
    it('draws a bar with the count', () => {
      const out = sink(true);
      const p = createProgress(out.stream, 'processing');
      p.update(3, 12, '9 pending');
      p.stop();
      expect(out.text()).toMatch(/processing \[[█░]+\] 3\/12 9 pending/);
    });
  });

  describe('when disabled (--json)', () => {
    it('writes nothing', () => {
      const out = sink(false);
      const p = createProgress(out.stream, 'processing', { enabled: false });
      p.update(1, 2);
      p.stop();
      expect(out.text()).toBe('');
    });
  });

  describe('when a run has import batches still to turn into jobs', () => {
    it('counts them apart from the pending jobs', () => {
      const out = sink(false);
      const io = {
        stdout: out.stream,
        stderr: out.stream,
        stdin: process.stdin,
        env: {},
        stop: new AbortController().signal,
      } as unknown as CliIo;
      const progress = runProgress(io, true);
      progress.onProgress({ phase: 'processing', pending: { 'orders-intake': 2, orders: 0 } });
      progress.onProgress({ phase: 'processing', pending: { 'orders-intake': 1, orders: 1000 } });
      progress.onProgress({ phase: 'processing', pending: { 'orders-intake': 0, orders: 0 } });
      progress.stop();
      expect(out.text()).toBe('processing: 0/0 0 pending, 2 import batches to queue\nprocessing: 1000/1000 0 pending\n');
    });
  });
});
