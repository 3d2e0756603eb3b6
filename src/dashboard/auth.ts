import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { defaults } from '../../config/defaults.js';
import type { Logger } from '../logger.js';
import { sameSecret } from '../same-secret.js';
import { esc, page } from './html.js';
import { LoginThrottle } from './login-throttle.js';
import { isLoopback } from './loopback.js';
import { sameOriginPath } from './same-origin-path.js';
import { Sessions } from './sessions.js';

/** The dashboard's sessions and login limits; defaults in config/defaults.ts (`dashboard`); startDashboard's `limits` option overrides any of them. */
export interface DashboardLimits {
  /** Life of a session from its login, in ms. */
  sessionTtlMs: number;
  /** A session unused this long ends, in ms. */
  sessionIdleMs: number;
  /** Sessions held at once; past it the oldest ends. */
  maxSessions: number;
  /** How often ended sessions and old login attempts are swept from memory, in ms. */
  sweepMs: number;
  /** Login attempts one client address may make per window (a successful one is given back). */
  loginAttemptsPerClient: number;
  /** Login attempts all clients together may make per window. */
  loginAttemptsOverall: number;
  /** The window of both login limits, in ms. */
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
  return `DASHBOARD_PASSWORD: must be at least ${min} characters when the dashboard listens on ${host}, where other machines can reach it (a shorter one is allowed on a loopback host only)`;
}

function cookieOf(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

/**
 * The form posts to the page's own address, so `next` stays in the URL and nothing of the request is written
 * into the page: what a signed-out visitor sees cannot depend on what they sent.
 */
function loginPage(problem?: string): string {
  return page(
    'Log in',
    `<form class="login" method="post">
<h1>Log in</h1>${problem ? `<p class="bad" role="alert">${esc(problem)}</p>` : ''}
<label for="user">User</label><input id="user" name="user" autocomplete="username" required autofocus>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<p><button type="submit">Log in</button></p></form>`,
  );
}

/** The address a login throttle counts: the peer's own (no X-Forwarded-For is trusted). */
function clientOf(req: Request): string {
  const a = req.socket.remoteAddress ?? 'unknown';
  return a.startsWith('::ffff:') ? a.slice(7) : a;
}

/**
 * A login form and in-memory sessions (HttpOnly, SameSite=Strict cookie). Logins are throttled per client and
 * overall, and each failure is logged (never what was typed). `guard` lets live sessions through; pages
 * redirect to the form, API calls answer 401. `close` stops the sweep of ended sessions.
 */
export function sessionAuth(o: SessionAuthOptions): { routes: Router; guard: (req: Request, res: Response, next: NextFunction) => void; close(): void } {
  const { limits, logger } = o;
  const sessions = new Sessions({ ttlMs: limits.sessionTtlMs, idleMs: limits.sessionIdleMs, max: limits.maxSessions, now: o.now });
  const throttle = new LoginThrottle({ perClient: limits.loginAttemptsPerClient, overall: limits.loginAttemptsOverall, windowMs: limits.loginWindowMs, now: o.now });
  const sweeper = setInterval(() => {
    sessions.sweep();
    throttle.sweep();
  }, limits.sweepMs);
  sweeper.unref();
  const name = o.secureCookie ? '__Host-isync_session' : 'isync_session';
  const cookie = (value: string, maxAgeS: number) => `${name}=${value}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAgeS}${o.secureCookie ? '; Secure' : ''}`;
  let lastThrottleLog = -Infinity;

  const routes = express.Router();
  routes.get('/login', (_req, res) => {
    res.type('html').send(loginPage());
  });
  routes.post('/login', express.urlencoded({ extended: false, limit: '4kb' }), (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const next = sameOriginPath(req.query.next ?? body.next, o.originOf(req));
    const client = clientOf(req);
    const attempt = throttle.take(client);
    if (!attempt.ok) {
      const seconds = Math.max(1, Math.ceil(attempt.retryAfterMs / 1000));
      // One line per 10 s at most: a flood of refused guesses must not flood the log too.
      if (o.now() - lastThrottleLog >= 10_000) {
        lastThrottleLog = o.now();
        logger?.warn({ client, limit: attempt.scope, retryAfterSeconds: seconds }, 'dashboard: too many login attempts, logins refused for a while (someone guessing, or a script with a wrong password)');
      }
      res.status(429).setHeader('retry-after', String(seconds));
      res.type('html').send(loginPage(`Too many login attempts: try again in ${seconds} s.`));
      return;
    }
    // Both compared every time, in constant time, so neither the answer nor its timing tells which was wrong.
    const userOk = typeof body.user === 'string' && sameSecret(body.user, o.credentials.user);
    const passwordOk = typeof body.password === 'string' && sameSecret(body.password, o.credentials.password);
    if (!userOk || !passwordOk) {
      logger?.warn({ client, knownUser: userOk }, 'dashboard: failed login (wrong user or password)');
      setTimeout(() => res.status(401).type('html').send(loginPage('Wrong user or password.')), limits.failedLoginPauseMs);
      return;
    }
    attempt.giveBack();
    res.setHeader('set-cookie', cookie(sessions.create(), Math.floor(limits.sessionTtlMs / 1000)));
    logger?.info({ client }, 'dashboard: signed in');
    res.redirect(303, next);
  });
  routes.post('/logout', (req, res) => {
    sessions.end(cookieOf(req, name));
    res.setHeader('set-cookie', cookie('', 0));
    res.redirect(303, '/login');
  });

  const guard = (req: Request, res: Response, next: NextFunction) => {
    if (sessions.use(cookieOf(req, name))) return next();
    if (req.method === 'GET' && !req.path.includes('/api/') && req.accepts('html')) {
      return res.redirect(303, `/login?next=${encodeURIComponent(req.originalUrl)}`);
    }
    res.status(401).json({ error: 'log in first at /login' });
  };
  return { routes, guard, close: () => clearInterval(sweeper) };
}
