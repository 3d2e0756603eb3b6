import { randomBytes, scrypt } from 'node:crypto';
import RedisStore from 'connect-redis';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import session from 'express-session';
import type { RedisConnection as Redis } from '../redis/connection.js';

declare module 'express-session' {
  interface SessionData {
    /** Epoch ms of the login (the dashboard's clock). */
    signedInAt: number;
    /** Epoch ms of the last use, to the minute. */
    seenAt: number;
  }
}

export interface SessionOptions {
  redis: Redis;
  prefix: string;
  user: string;
  password: string;
  /** The dashboard is reached over HTTPS (through its proxy): the cookie is Secure and named __Host-... */
  secureCookie: boolean;
  /** Life of a session from its login, in ms. */
  ttlMs: number;
  /** A session unused this long ends, in ms. */
  idleMs: number;
  /** Sessions held at once; past it the oldest ends. */
  maxSessions: number;
  now: () => number;
}

/** Last use is written at most this often, so that reading pages neither rewrites the session nor re-sends its cookie. */
const SEEN_EVERY_MS = 60_000;

/**
 * The key that signs session cookies, derived from the login with scrypt: every dashboard process of the prefix
 * with the same login reads the others' cookies, a new password signs everyone out, and no key is stored anywhere.
 */
function cookieSecret(o: SessionOptions): Promise<string> {
  const salt = `inventory-sync dashboard session cookie\n${o.prefix}\n${o.user}`;
  return new Promise((resolve, reject) => {
    scrypt(o.password, salt, 32, { N: 2 ** 14 }, (err, key) => (err ? reject(err) : resolve(key.toString('hex'))));
  });
}

export interface Sessions {
  /** express-session over a Redis store (connect-redis): a session is `{prefix}:dashboard:session:<id>`, no secret in it. */
  middleware: RequestHandler;
  /** Signs the request's client in: a new session id (no fixation), then the oldest past `maxSessions` end. */
  signIn(req: Request): Promise<void>;
  signOut(req: Request, res: Response): Promise<void>;
  /** Whether the request has a live session; marks it used, and ends it when too old or unused too long. */
  live(req: Request): Promise<boolean>;
  cookieName: string;
}

const call = (fn: (cb: (err?: unknown) => void) => void) =>
  new Promise<void>((resolve, reject) => fn((err) => (err ? reject(err) : resolve())));

/** Sessions shared in Redis by every dashboard process of the prefix; each ends `ttlMs` after login or `idleMs` after use. */
export async function createSessions(o: SessionOptions): Promise<Sessions> {
  const cookieName = o.secureCookie ? '__Host-isync_session' : 'isync_session';
  const index = `${o.prefix}:dashboard:sessions`;
  // Redis ends an unused session on its own (the TTL is renewed on each use); the checks below use the dashboard's clock.
  const store = new RedisStore({ client: o.redis, prefix: `${o.prefix}:dashboard:session:`, ttl: () => Math.ceil(o.idleMs / 1000) });
  const middleware = session({
    name: cookieName,
    secret: await cookieSecret(o),
    store,
    genid: () => randomBytes(32).toString('hex'),
    resave: false,
    saveUninitialized: false,
    rolling: false,
    unset: 'destroy',
    cookie: { httpOnly: true, sameSite: 'strict', path: '/', secure: o.secureCookie, maxAge: o.ttlMs },
  });
  // Behind its TLS proxy the dashboard hears plain http; express-session sets a Secure cookie only on a secure request.
  const withSecure: RequestHandler = o.secureCookie
    ? (req: Request, res: Response, next: NextFunction) => {
        Object.defineProperty(req, 'secure', { value: true });
        middleware(req, res, next);
      }
    : middleware;

  const endOldest = async (): Promise<void> => {
    const now = o.now();
    await o.redis.zremrangebyscore(index, '-inf', now - o.ttlMs);
    const extra = (await o.redis.zcard(index)) - o.maxSessions;
    if (extra <= 0) return;
    const oldest = await o.redis.zpopmin(index, extra);
    const ids = oldest.filter((_, i) => i % 2 === 0);
    await Promise.all(ids.map((id) => call((cb) => void store.destroy(id, cb))));
  };

  return {
    cookieName,
    middleware: withSecure,
    async signIn(req) {
      await call((cb) => req.session.regenerate(cb));
      const now = o.now();
      req.session.signedInAt = now;
      req.session.seenAt = now;
      await call((cb) => req.session.save(cb));
      await o.redis.multi().zadd(index, now, req.sessionID).pexpire(index, o.ttlMs).exec();
      await endOldest();
    },
    async signOut(req, res) {
      await o.redis.zrem(index, req.sessionID);
      await call((cb) => req.session.destroy(cb));
      res.cookie(cookieName, '', { httpOnly: true, sameSite: 'strict', path: '/', secure: o.secureCookie, maxAge: 0 });
    },
    async live(req) {
      const s = req.session;
      if (s?.signedInAt === undefined || s.seenAt === undefined) return false;
      const now = o.now();
      if (now - s.signedInAt >= o.ttlMs || now - s.seenAt >= o.idleMs) {
        await o.redis.zrem(index, req.sessionID);
        await call((cb) => s.destroy(cb));
        return false;
      }
      if (now - s.seenAt >= SEEN_EVERY_MS) s.seenAt = now;
      return true;
    },
  };
}
