import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { defaults } from '../../config/defaults.js';
import type { Logger } from '../log/logger.js';
import type { RedisConnection as Redis } from '../redis/connection.js';
import { sameSecret } from '../secrets/same-secret.js';
import { loginPage } from './login-page.js';
import { LoginThrottle, type ThrottleRefusal } from './login-throttle.js';
import { isLoopback } from '../net/loopback.js';
import { sameOriginPath } from './same-origin-path.js';
import { createSessions, type Sessions } from './sessions.js';

/** The dashboard's sessions and login limits; defaults in config/defaults.ts (`dashboard`); startDashboard's `limits` overrides any. */
export interface DashboardLimits {
  /** Life of a session from its login, in ms. */
  sessionTtlMs: number;
  /** A session unused this long ends, in ms. */
  sessionIdleMs: number;
  /** Sessions held at once; past it the oldest ends. */
  maxSessions: number;
  /** Login attempts one client address may make per window (a successful one is given back). */
  loginAttemptsPerClient: number;
  /** Login attempts all clients together may make per window. */
  loginAttemptsOverall: number;
  /** The window of both login limits, in ms (whole seconds). */
  loginWindowMs: number;
  /** Pause before a wrong login answers, in ms. */
  failedLoginPauseMs: number;
}

export interface Credentials {
  user: string;
  password: string;
}

export interface SessionAuthOptions {
  credentials: Credentials;
  limits: DashboardLimits;
  /** Where sessions and login counts are kept, shared by every dashboard process of the prefix. */
  redis: Redis;
  prefix: string;
  /** The dashboard is reached over HTTPS: the cookie is Secure (and named __Host-...). */
  secureCookie: boolean;
  /** The dashboard's own origin for a request: `next` is resolved against it. */
  originOf: (req: Request) => string;
  now: () => number;
  logger?: Logger;
}

/** Why a password is too short for the host it guards (one line naming the variable), or undefined. */
export function weakPasswordProblem(host: string, password: string): string | undefined {
  const min = defaults.dashboardMinPasswordLength;
  if (isLoopback(host) || [...password].length >= min) return undefined;
  return (
    `DASHBOARD_PASSWORD: must be at least ${min} characters when the dashboard listens on ${host}, where other machines ` +
    'can reach it (a shorter one is allowed on a loopback host only)'
  );
}

/** The address a login throttle counts: the peer's own (no X-Forwarded-For is trusted). */
function clientOf(req: Request): string {
  const a = req.socket.remoteAddress ?? 'unknown';
  return a.startsWith('::ffff:') ? a.slice(7) : a;
}

type Handler = (req: Request, res: Response, next: NextFunction) => void;
type Page = (req: Request, res: Response) => Promise<void>;

const wrap =
  (fn: Page): Handler =>
  (req, res, next) => {
    fn(req, res).catch(next);
  };

/**
 * A login form and sessions in Redis (HttpOnly, SameSite=Strict cookie). Logins are throttled per client and
 * overall, and each failure is logged (never what was typed). `guard` lets live sessions through; pages
 * redirect to the form, API calls answer 401.
 */
export async function sessionAuth(o: SessionAuthOptions): Promise<{ routes: Router; guard: Handler }> {
  const { limits } = o;
  const sessions = await createSessions({
    redis: o.redis,
    prefix: o.prefix,
    user: o.credentials.user,
    password: o.credentials.password,
    secureCookie: o.secureCookie,
    ttlMs: limits.sessionTtlMs,
    idleMs: limits.sessionIdleMs,
    maxSessions: limits.maxSessions,
    now: o.now,
  });
  const throttle = new LoginThrottle({
    redis: o.redis,
    prefix: o.prefix,
    perClient: limits.loginAttemptsPerClient,
    overall: limits.loginAttemptsOverall,
    windowMs: limits.loginWindowMs,
  });

  const routes = express.Router();
  routes.use(sessions.middleware);
  routes.get('/login', (_req, res) => {
    res.type('html').send(loginPage());
  });
  routes.post('/login', express.urlencoded({ extended: false, limit: '4kb' }), wrap(loginAnswer(o, sessions, throttle)));
  routes.post(
    '/logout',
    wrap(async (req, res) => {
      await sessions.signOut(req, res);
      res.redirect(303, '/login');
    }),
  );
  return { routes, guard: sessionGuard(sessions) };
}

/** A login: refused while throttled, checked in constant time, then a session and the page it came from. */
function loginAnswer(o: SessionAuthOptions, sessions: Sessions, throttle: LoginThrottle): Page {
  const logRefusal = refusalLog(o);
  return async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const next = sameOriginPath(req.query.next ?? body.next, o.originOf(req));
    const client = clientOf(req);
    const attempt = await throttle.take(client);
    if (!attempt.ok) {
      const seconds = Math.max(1, Math.ceil(attempt.retryAfterMs / 1000));
      logRefusal(client, attempt, seconds);
      res.status(429).setHeader('retry-after', String(seconds));
      res.type('html').send(loginPage(`Too many login attempts: try again in ${seconds} s.`));
      return;
    }
    // Both compared every time, in constant time, so neither the answer nor its timing tells which was wrong.
    const userOk = typeof body.user === 'string' && sameSecret(body.user, o.credentials.user);
    const passwordOk = typeof body.password === 'string' && sameSecret(body.password, o.credentials.password);
    if (!userOk || !passwordOk) {
      o.logger?.warn({ client, knownUser: userOk }, 'dashboard: failed login (wrong user or password)');
      await new Promise((resolve) => setTimeout(resolve, o.limits.failedLoginPauseMs));
      res.status(401).type('html').send(loginPage('Wrong user or password.'));
      return;
    }
    await attempt.giveBack();
    await sessions.signIn(req);
    o.logger?.info({ client }, 'dashboard: signed in');
    res.redirect(303, next);
  };
}

/** Logs a throttled login, one line per 10 s at most: a flood of refused guesses must not flood the log too. */
function refusalLog(o: SessionAuthOptions): (client: string, refusal: ThrottleRefusal, seconds: number) => void {
  let lastThrottleLog = -Infinity;
  return (client, refusal, seconds) => {
    if (o.now() - lastThrottleLog < 10_000) return;
    lastThrottleLog = o.now();
    const why = 'someone guessing, or a script with a wrong password';
    const fields = { client, limit: refusal.scope, retryAfterSeconds: seconds };
    o.logger?.warn(fields, `dashboard: too many login attempts, logins refused for a while (${why})`);
  };
}

/** Lets live sessions through; a page asked for without one redirects to the login form, anything else answers 401. */
function sessionGuard(sessions: Sessions): Handler {
  return (req, res, next) => {
    sessions.live(req).then((live) => {
      if (live) return next();
      if (req.method === 'GET' && !req.path.includes('/api/') && req.accepts('html')) {
        return res.redirect(303, `/login?next=${encodeURIComponent(req.originalUrl)}`);
      }
      res.status(401).json({ error: 'log in first at /login' });
    }, next);
  };
}
