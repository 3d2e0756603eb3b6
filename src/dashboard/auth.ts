import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { esc, page } from './html.js';

export interface Credentials {
  user: string;
  password: string;
}

const COOKIE = 'isync_session';
const SESSION_MS = 12 * 3600_000;

function sameText(a: string, b: string): boolean {
  // Compare digests so neither the length nor the content leaks through timing.
  const da = createHash('sha256').update(a).digest();
  const db = createHash('sha256').update(b).digest();
  return timingSafeEqual(da, db);
}

function sessionOf(req: Request): string | undefined {
  const header = req.headers.cookie ?? '';
  for (const part of header.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === COOKIE) return rest.join('=');
  }
  return undefined;
}

/** Only local paths, so the login form cannot send anyone elsewhere. */
function safeNext(next: unknown): string {
  return typeof next === 'string' && next.startsWith('/') && !next.startsWith('//') ? next : '/';
}

function loginPage(next: string, failed: boolean): string {
  return page(
    'Log in',
    `<form class="login" method="post" action="/login">
<h1>Log in</h1>${failed ? '<p class="bad" role="alert">Wrong user or password.</p>' : ''}
<input type="hidden" name="next" value="${esc(next)}">
<label for="user">User</label><input id="user" name="user" autocomplete="username" required autofocus>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<p><button type="submit">Log in</button></p></form>`,
  );
}

/**
 * A login form and an in-memory session cookie (HttpOnly, SameSite=Strict, so other sites cannot post with it).
 * `guard` lets signed-in requests through; pages redirect to the form, API calls answer 401.
 */
export function sessionAuth(credentials: Credentials): { routes: Router; guard: (req: Request, res: Response, next: NextFunction) => void } {
  const sessions = new Map<string, number>();
  const routes = express.Router();
  routes.use(express.urlencoded({ extended: false, limit: '4kb' }));

  routes.get('/login', (req, res) => {
    res.type('html').send(loginPage(safeNext(req.query.next), false));
  });
  routes.post('/login', (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const ok = typeof body.user === 'string' && typeof body.password === 'string' && sameText(body.user, credentials.user) && sameText(body.password, credentials.password);
    if (!ok) {
      // A short pause makes guessing slow without locking anyone out.
      setTimeout(() => res.status(401).type('html').send(loginPage(safeNext(body.next), true)), 300);
      return;
    }
    const id = randomBytes(32).toString('hex');
    sessions.set(id, Date.now() + SESSION_MS);
    res.setHeader('set-cookie', `${COOKIE}=${id}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${SESSION_MS / 1000}`);
    res.redirect(303, safeNext(body.next));
  });
  routes.post('/logout', (req, res) => {
    const id = sessionOf(req);
    if (id) sessions.delete(id);
    res.setHeader('set-cookie', `${COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`);
    res.redirect(303, '/login');
  });

  const guard = (req: Request, res: Response, next: NextFunction) => {
    const id = sessionOf(req);
    const until = id ? sessions.get(id) : undefined;
    if (id && until && until > Date.now()) return next();
    if (id) sessions.delete(id);
    if (req.method === 'GET' && !req.path.includes('/api/') && req.accepts('html')) {
      return res.redirect(303, `/login?next=${encodeURIComponent(req.originalUrl)}`);
    }
    res.status(401).json({ error: 'log in first at /login' });
  };
  return { routes, guard };
}
