import { Writable } from 'node:stream';
import { ReplyError } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { createLogThrottle, logRepeated, reasonOf } from '../../src/log/log-throttle.js';

/** A logger whose lines are kept, parsed, and whose throttle reads a clock the test moves. */
function capture(intervalMs = 30_000) {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  return { logger: createLogger({ destination, repeatIntervalMs: intervalMs }), lines };
}

describe('log throttle', () => {
  describe('when one reason repeats', () => {
    it('lets one through per interval and counts the others', () => {
      let t = 0;
      const throttle = createLogThrottle({ intervalMs: 30_000, now: () => t });
      expect(throttle.note('redis:OOM')).toEqual({ write: true, repeats: 0 });
      for (let i = 1; i <= 4211; i++) {
        t = i; // all within the first 30 s
        expect(throttle.note('redis:OOM').write).toBe(false);
      }
      t = 30_000;
      expect(throttle.note('redis:OOM')).toEqual({ write: true, repeats: 4211 });
      t = 30_001;
      expect(throttle.note('redis:OOM')).toEqual({ write: false, repeats: 1 });
    });

    it('keeps each reason apart', () => {
      const throttle = createLogThrottle({ now: () => 0 });
      expect(throttle.note('redis:OOM').write).toBe(true);
      expect(throttle.note('redis:READONLY').write).toBe(true);
      expect(throttle.note('redis:OOM').write).toBe(false);
    });
  });

  describe('when logging through a logger and its children', () => {
    it('writes one line per reason across the children, then the count since it at the end of each interval', async () => {
      const { logger, lines } = capture(200);
      const a = logger.child({ stream: 'orders' });
      const b = logger.child({ stream: 'boms' });
      for (let i = 0; i < 1000; i++) {
        logRepeated(a, 'error', 'redis:OOM', { err: 'OOM command not allowed' }, 'worker error (Redis?)');
        logRepeated(b, 'error', 'redis:OOM', { err: 'OOM command not allowed' }, 'worker error (Redis?)');
      }
      logRepeated(a, 'warn', 'pull:orders:ECONNREFUSED', {}, 'scheduled pull of orders failed');
      expect(lines.map((l) => l.msg)).toEqual(['worker error (Redis?)', 'scheduled pull of orders failed']);
      expect(lines[0]).toMatchObject({ stream: 'orders', reason: 'redis:OOM', err: 'OOM command not allowed' });
      expect(lines[0]).not.toHaveProperty('repeats');
      // The burst stopped: its count is written at the end of the interval all the same.
      await new Promise((r) => setTimeout(r, 250));
      expect(lines[2]).toMatchObject({ stream: 'boms', repeats: 1999, msg: 'worker error (Redis?) (1999 more since the last line)' });
      // One more within the next interval: held back, then counted.
      logRepeated(a, 'error', 'redis:OOM', { err: 'OOM command not allowed' }, 'worker error (Redis?)');
      expect(lines).toHaveLength(3);
      await new Promise((r) => setTimeout(r, 250));
      expect(lines.slice(3)).toMatchObject([{ stream: 'orders', repeats: 1, msg: 'worker error (Redis?) (1 more since the last line)' }]);
    });
  });

  describe('when naming the reason of an error', () => {
    it('takes the reply code, the error code or the class, never the varying text', () => {
      expect(reasonOf(new ReplyError("OOM command not allowed when used memory > 'maxmemory'."))).toBe('OOM');
      expect(reasonOf(new ReplyError("READONLY You can't write against a read only replica."))).toBe('READONLY');
      expect(reasonOf(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6390'), { code: 'ECONNREFUSED' }))).toBe('ECONNREFUSED');
      expect(reasonOf(new Error('Connection is closed.'))).toBe('Connection is closed');
      expect(reasonOf(new TypeError('x is not a function'))).toBe('TypeError');
      const a = reasonOf(Object.assign(new Error('the service answered 503 at /acme/api/order/1'), { code: 'UNAVAILABLE' }));
      expect(a).toBe(reasonOf(Object.assign(new Error('the service answered 503 at /acme/api/order/2'), { code: 'UNAVAILABLE' })));
    });
  });
});
