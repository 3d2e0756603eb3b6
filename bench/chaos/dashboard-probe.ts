import { check, type CheckResult } from './check-types.js';

export interface DashboardProbe {
  /** Requests without (or with a wrong) login, each of which must be refused. */
  refusals: CheckResult;
  /** Everything read while logged in, for the secret scan. */
  answers: Array<{ path: string; body: string }>;
  /** Signed-in reads that did not answer 200. */
  reads: CheckResult;
}

interface Attempt {
  what: string;
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

const form = { 'content-type': 'application/x-www-form-urlencoded' };

/** A refusal: 401/403, or a redirect to the login page; never the content. */
function refused(status: number, location: string | null): boolean {
  return status === 401 || status === 403 || ((status === 302 || status === 303) && (location ?? '').startsWith('/login'));
}

/**
 * Checks that the dashboard refuses every request without its login (pages, its API, bull-board's API,
 * actions, a forged cookie, a wrong password), then logs in and reads its pages and the given jobs.
 * With several accounts (`accounts`: each account's path, `/a/NAME`), each account's pages and jobs are read under its
 * path, and the all-accounts page and its API too.
 */
export async function probeDashboard(
  url: string,
  user: string,
  password: string,
  jobs: Array<{ queue: string; id: string; base?: string }>,
  accounts: string[] = [],
): Promise<DashboardProbe> {
  const bases = accounts.length ? accounts : [''];
  const b0 = bases[0]!;
  const someJob = jobs[0] ?? { queue: 'orders', id: 'none' };
  const job = encodeURIComponent(someJob.id);
  const attempts: Attempt[] = [
    { what: 'overview without login', method: 'GET', path: '/' },
    ...(accounts.length ? [{ what: 'accounts API without login', method: 'GET' as const, path: '/api/accounts' }] : []),
    { what: 'status API without login', method: 'GET', path: `${b0}/api/status` },
    { what: 'job page without login', method: 'GET', path: `${b0}/jobs/${job}` },
    { what: 'bull-board page without login', method: 'GET', path: `${b0}/queues` },
    { what: 'bull-board API without login', method: 'GET', path: `${b0}/queues/api/queues` },
    { what: 'bull-board job logs without login', method: 'GET', path: `${b0}/queues/api/queues/${someJob.queue}/${job}/logs` },
    { what: 'retry without login', method: 'POST', path: `${b0}/jobs/${job}/retry`, headers: form, body: '' },
    { what: 'bull-board empty queue without login', method: 'PUT', path: `${b0}/queues/api/queues/${someJob.queue}/empty` },
    { what: 'forged session cookie', method: 'GET', path: `${b0}/api/status`, headers: { cookie: 'isync_session=deadbeef' } },
    {
      what: 'Basic auth instead of the login form',
      method: 'GET',
      path: `${b0}/api/status`,
      headers: { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` },
    },
    {
      what: 'login with a wrong password',
      method: 'POST',
      path: '/login',
      headers: form,
      body: `user=${encodeURIComponent(user)}&password=wrong-${Date.now()}`,
    },
  ];
  const refusalV: string[] = [];
  for (const a of attempts) {
    const res = await fetch(url + a.path, { method: a.method, headers: a.headers, body: a.body, redirect: 'manual' });
    await res.arrayBuffer();
    // A correct Basic header is not the dashboard's login: it must not open anything either.
    if (!refused(res.status, res.headers.get('location'))) refusalV.push(`${a.what}: ${a.method} ${a.path} answered ${res.status}`);
  }

  const login = await fetch(`${url}/login`, {
    method: 'POST',
    headers: form,
    body: `user=${encodeURIComponent(user)}&password=${encodeURIComponent(password)}&next=%2F`,
    redirect: 'manual',
  });
  await login.arrayBuffer();
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const readV: string[] = [];
  if (login.status !== 303 || !cookie) readV.push(`login with the right password answered ${login.status} without a session cookie`);

  const paths = [
    '/',
    '/login',
    ...(accounts.length ? ['/api/accounts', '/?q=shop'] : []),
    ...bases.flatMap((b) => [
      ...(b ? [`${b}/`] : []),
      `${b}/api/status`,
      `${b}/queues`,
      `${b}/queues/api/queues?page=1&jobsPerPage=50`,
      `${b}/queues/api/redis/stats`,
      ...['orders', 'stock-counts', 'boms'].flatMap((q) =>
        ['failed', 'completed'].map((s) => `${b}/queues/api/queues?activeQueue=${q}&status=${s}&page=1&jobsPerPage=50`),
      ),
    ]),
    ...jobs.flatMap((j) => [
      `${j.base ?? ''}/jobs/${encodeURIComponent(j.id)}`,
      `${j.base ?? ''}/queues/api/queues/${j.queue}/${encodeURIComponent(j.id)}`,
      `${j.base ?? ''}/queues/api/queues/${j.queue}/${encodeURIComponent(j.id)}/logs`,
    ]),
  ];
  const answers: Array<{ path: string; body: string }> = [];
  for (const path of paths) {
    const res = await fetch(url + path, { headers: { cookie }, redirect: 'manual' });
    const body = await res.text();
    answers.push({ path, body });
    if (res.status !== 200) readV.push(`signed in, GET ${path} answered ${res.status}`);
  }
  return {
    refusals: check('dashboard refuses requests without the login', attempts.length, refusalV),
    answers,
    reads: check('dashboard answers its pages once logged in', paths.length, readV),
  };
}
