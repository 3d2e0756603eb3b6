import type { IncomingMessage } from 'node:http';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { isLoopback } from '../net/loopback.js';

/** A push let through, or how long its sender must wait. */
export type SenderVerdict = { ok: true } | { ok: false; retryAfterSeconds: number };

/** Pushes per sender address and second, counted in this process (a limit must hold while Redis refuses writes too). */
export interface SenderLimit {
  take(sender: string): Promise<SenderVerdict>;
}

export function senderLimit(perSecond: number): SenderLimit {
  const limiter = new RateLimiterMemory({ points: perSecond, duration: 1 });
  return {
    async take(sender) {
      try {
        await limiter.consume(sender);
        return { ok: true };
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) throw err;
        return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(err.msBeforeNext / 1000)) };
      }
    },
  };
}

/**
 * Who sent a request: its peer's address, or, when the peer is on this host (a TLS proxy in front, docs/push.md),
 * the address the proxy put last in X-Forwarded-For.
 */
export function senderOf(req: IncomingMessage): string {
  const peer = (req.socket.remoteAddress ?? 'unknown').replace(/^::ffff:/, '');
  const forwarded = req.headers['x-forwarded-for'];
  if (!forwarded || !isLoopback(peer)) return peer;
  const last = (Array.isArray(forwarded) ? forwarded.join(',') : forwarded).split(',').at(-1)?.trim();
  return last || peer;
}
