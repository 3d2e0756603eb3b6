import { request, type IncomingHttpHeaders } from 'node:http';
import type { Redis } from 'ioredis';
import { startDashboard, type Dashboard, type DashboardOptions } from '../../src/dashboard/dashboard-server.js';
import { createLogger } from '../../src/log/logger.js';
import { captureOut } from '../helpers/out-stream.js';
import { connect, deletePrefix, uniquePrefix } from '../helpers/redis.js';
import { programKinds } from '../../jobs/kinds.js';

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface RawRequest {
  method?: string;
  /** Sent as given: Host, Origin and Sec-Fetch-Site included (fetch would refuse or rewrite some). */
  headers?: Record<string, string>;
  body?: string;
  /** The client's own address, e.g. 127.0.0.2 to be another client of a loopback server. */
  localAddress?: string;
}

/** One HTTP request with node:http, answered in full. */
export function raw(url: string, o: RawRequest = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: o.method ?? 'GET', headers: o.headers, localAddress: o.localAddress }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

export const form = (fields: Record<string, string>) => ({
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

/** A dashboard in this process on 127.0.0.1:0 over a fresh prefix, logging JSON lines the test can read. */
export interface TestDashboard {
  dashboard: Dashboard;
  base: string;
  redis: Redis;
  prefix: string;
  /** The log lines so far, parsed. */
  logs(): Array<Record<string, unknown>>;
  /** The log as written. */
  logText(): string;
  /** Signs in; answers the cookie to send (name=value). */
  login(user: string, password: string): Promise<string>;
  close(): Promise<void>;
}

/** `prefix`: another dashboard's, to be a second process of the same installation. */
export async function startTestDashboard(o: Partial<Omit<DashboardOptions, 'redis' | 'logger'>> = {}): Promise<TestDashboard> {
  const redis = connect();
  const prefix = o.prefix ?? uniquePrefix('dash');
  const out = captureOut(false);
  const logger = createLogger({ level: 'debug', destination: out.stream });
  const dashboard = await startDashboard({ host: '127.0.0.1', port: 0, auth: null, kinds: programKinds, ...o, redis, prefix, logger });
  const base = dashboard.url;
  return {
    dashboard,
    base,
    redis,
    prefix,
    logs: () => out.lines().map((l) => JSON.parse(l) as Record<string, unknown>),
    logText: out.text,
    async login(user, password) {
      const r = await raw(`${base}/login`, { method: 'POST', ...form({ user, password }) });
      if (r.status !== 303) throw new Error(`login answered ${r.status}`);
      return String(r.headers['set-cookie']?.[0]).split(';')[0] as string;
    },
    async close() {
      await dashboard.close();
      await deletePrefix(redis, prefix);
      redis.disconnect();
    },
  };
}
