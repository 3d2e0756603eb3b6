import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RedisConnection as Redis } from '../redis/connection.js';

/** A refusal: how long until an attempt would be taken, and whose limit it hit. */
export interface ThrottleRefusal {
  ok: false;
  retryAfterMs: number;
  scope: 'client' | 'overall';
}

/** A taken attempt; `giveBack` when it succeeded, so that good logins never count against anyone. */
export interface ThrottleGrant {
  ok: true;
  giveBack(): Promise<void>;
}

export interface LoginThrottleOptions {
  redis: Redis;
  prefix: string;
  /** Attempts one client address may make per window. */
  perClient: number;
  /** Attempts all clients together may make per window. */
  overall: number;
  /** The window, in ms (whole seconds). */
  windowMs: number;
}

/**
 * Login attempts per client address and over all clients, counted in Redis by rate-limiter-flexible, so every
 * dashboard process of the prefix shares the limits. A window starts at its first attempt. An attempt is
 * counted when it arrives, not when it fails, so parallel guesses are limited as much as sequential ones.
 */
export class LoginThrottle {
  private readonly byClient: RateLimiterRedis;
  private readonly all: RateLimiterRedis;

  constructor(o: LoginThrottleOptions) {
    const duration = Math.max(1, Math.round(o.windowMs / 1000));
    const keyPrefix = `${o.prefix}:dashboard:logins`;
    this.byClient = new RateLimiterRedis({ storeClient: o.redis, keyPrefix: `${keyPrefix}:client`, points: o.perClient, duration });
    this.all = new RateLimiterRedis({ storeClient: o.redis, keyPrefix: `${keyPrefix}:overall`, points: o.overall, duration });
  }

  async take(client: string): Promise<ThrottleGrant | ThrottleRefusal> {
    const mine = await consume(this.byClient, client);
    if (mine) return { ok: false, retryAfterMs: mine.msBeforeNext, scope: 'client' };
    const overall = await consume(this.all, 'all');
    if (overall) {
      // Refused by the overall limit: the client's own count is given back, as if the attempt never came.
      await this.byClient.reward(client, 1);
      return { ok: false, retryAfterMs: overall.msBeforeNext, scope: 'overall' };
    }
    return {
      ok: true,
      giveBack: async () => {
        await Promise.all([this.byClient.reward(client, 1), this.all.reward('all', 1)]);
      },
    };
  }
}

/** Takes one point; answers the refusal when the limit is reached (Redis errors are thrown). */
async function consume(limiter: RateLimiterRedis, key: string): Promise<RateLimiterRes | undefined> {
  try {
    await limiter.consume(key);
    return undefined;
  } catch (err) {
    if (err instanceof RateLimiterRes) return err;
    throw err;
  }
}
