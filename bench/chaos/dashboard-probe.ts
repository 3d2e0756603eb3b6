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
 */
export async function probeDashboard(
  url: string,
  user: string,
  password: string,
  jobs: Array<{ queue: string; id: string }>,
): Promise<DashboardProbe> {
  const someJob = jobs[0] ?? { queue: 'orders', id: 'none' };
  const job = encodeURIComponent(someJob.id);
  const attempts: Attempt[] = [
    { what: 'overview without login', method: 'GET', path: '/' },
    { what: 'status API without login', method: 'GET', path: '/api/status' },
    { what: 'job page without login', method: 'GET', path: `/jobs/${job}` },
    { what: 'bull-board page without login', method: 'GET', path: '/queues' },
    { what: 'bull-board API without login', method: 'GET', path: '/queues/api/queues' },
    { what: 'bull-board job logs without login', method: 'GET', path: `/queues/api/queues/${someJob.queue}/${job}/logs` },
    { what: 'retry without login', method: 'POST', path: `/jobs/${job}/retry`, headers: form, body: '' },
    { what: 'bull-board empty queue without login', method: 'PUT', path: `/queues/api/queues/${someJob.queue}/empty` },
    { what: 'forged session cookie', method: 'GET', path: '/api/status', headers: { cookie: 'isync_session=deadbeef' } },
    {
      what: 'Basic auth instead of the login form',
      method: 'GET',
      path: '/api/status',
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
    '/api/status',
    '/login',
    '/queues',
    '/queues/api/queues?page=1&jobsPerPage=50',
    '/queues/api/redis/stats',
    ...['orders', 'stock-counts', 'boms'].flatMap((q) =>
      ['failed', 'completed'].map((s) => `/queues/api/queues?activeQueue=${q}&status=${s}&page=1&jobsPerPage=50`),
    ),
    ...jobs.flatMap((j) => [
      `/jobs/${encodeURIComponent(j.id)}`,
      `/queues/api/queues/${j.queue}/${encodeURIComponent(j.id)}`,
      `/queues/api/queues/${j.queue}/${encodeURIComponent(j.id)}/logs`,
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
