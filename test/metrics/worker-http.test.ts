import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/metrics/metrics.js';
import { startWorkerHttp, type WorkerHttp } from '../../src/metrics/worker-http.js';
import { connect } from '../helpers/redis.js';

describe('worker HTTP endpoints', () => {
  let redis: Redis;
  let http: WorkerHttp;
  let workersRunning: boolean;
  let warnings: () => Promise<string[]>;

  beforeEach(async () => {
    redis = connect();
    workersRunning = true;
    warnings = async () => [];
    const metrics = createMetrics({
      sources: {
        queueCounts: async () => [{ stream: 'orders', state: 'waiting', count: 7 }],
        intakeCounts: async () => [{ stream: 'orders', state: 'waiting', count: 2 }],
        feedLag: async () => [{ stream: 'orders', seconds: 12 }],
      },
    });
    metrics.onCall({ method: 'POST', path: '/demo/api/order', cls: 'post', status: 429, ms: 40, waitedMs: 1500, at: Date.now() });
    metrics.onCall({
      method: 'GET',
      path: '/demo/api/order/X',
      cls: 'get',
      status: null,
      ms: 15000,
      waitedMs: 0,
      at: Date.now(),
      error: 'TRANSIENT',
    });
    metrics.jobFinished('orders', 'synced', 0.3);
    http = await startWorkerHttp({
      host: '127.0.0.1',
      port: 0,
      registry: metrics.registry,
      readiness: [
        async () => ({ name: 'redis', ok: (await redis.ping()) === 'PONG' }),
        async () => ({ name: 'workers', ok: workersRunning, detail: workersRunning ? undefined : 'shutting down' }),
      ],
      warnings: () => warnings(),
    });
  });
  afterEach(async () => {
    await http.close();
    redis.disconnect();
  });

  it('serves Prometheus text with the program metrics and the scrape-time gauges', async () => {
    const res = await fetch(`${http.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(text).toContain('isync_api_calls_total{class="post",status="429"} 1');
    expect(text).toContain('isync_api_calls_total{class="get",status="none"} 1');
    expect(text).toContain('isync_rate_limited_total{class="post"} 1');
    expect(text).toContain('isync_budget_wait_seconds_sum{class="post"} 1.5');
    expect(text).toContain('isync_jobs_total{stream="orders",outcome="synced"} 1');
    expect(text).toContain('isync_queue_jobs{stream="orders",state="waiting"} 7');
    expect(text).toContain('isync_intake_batches{stream="orders",state="waiting"} 2');
    expect(text).toContain('isync_feed_lag_seconds{stream="orders"} 12');
    expect(text).toMatch(/isync_api_call_duration_seconds_bucket\{le="0.05",class="post"\} 1/);
    expect(text).toContain('process_cpu_user_seconds_total');
  });

  it('answers /healthz while the process is up', async () => {
    const res = await fetch(`${http.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('answers /readyz 200 when every check passes and 503 naming the one that does not', async () => {
    const ready = await fetch(`${http.url}/readyz`);
    expect(ready.status).toBe(200);
    workersRunning = false;
    const notReady = await fetch(`${http.url}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toEqual({
      status: 'not ready',
      checks: [
        { name: 'redis', ok: true },
        { name: 'workers', ok: false, detail: 'shutting down' },
      ],
      warnings: [],
    });
  });

  describe('when there is a risk that does not stop the worker', () => {
    it('lists it in /readyz and still answers 200', async () => {
      warnings = async () => ["Redis's maxmemory-policy is allkeys-lru, not noeviction."];
      const res = await fetch(`${http.url}/readyz`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ status: 'ready', warnings: ["Redis's maxmemory-policy is allkeys-lru, not noeviction."] });
    });

    it('says so when the warnings cannot be read, still answering 200', async () => {
      warnings = () => Promise.reject(new Error('INFO refused'));
      const res = await fetch(`${http.url}/readyz`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ status: 'ready', warnings: ['could not read the warnings: INFO refused'] });
    });
  });

  it('answers 404 elsewhere', async () => {
    expect((await fetch(`${http.url}/`)).status).toBe(404);
  });
});
