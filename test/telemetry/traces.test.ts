import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli, freshCwd } from '../cli/run-cli.js';
import { SECRETS, startStack, type Stack } from '../cli/stack.js';
import { eventually, startWorkerProcess, type WorkerProcess } from '../cli/worker-process.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';

const recorder = pathToFileURL(fileURLToPath(new URL('../helpers/record-imports.mjs', import.meta.url))).href;
const order = (orderId: string) => ({
  orderId,
  origin: 'Main Warehouse',
  lines: [{ productId: 'MUG-BLUE', quantity: 1, unitPrice: 12.5, location: 'Main Warehouse / A-01' }],
});

/** A sandbox, a feed with the orders, and an OTLP receiver; `sync --once --stream orders` as a child, its loaded modules recorded. */
async function syncWith(
  orders: string[],
  name: string,
  env: (receiver: OtlpReceiver) => Record<string, string>,
  before?: (stack: Stack) => void,
) {
  const stack = await startStack({ orders: orders.map(order) }, name);
  const receiver = await startOtlpReceiver();
  const importsFile = join(freshCwd(), 'imports.txt');
  try {
    before?.(stack);
    const run = await runCli(['sync', '--once', '--stream', 'orders'], {
      ...stack.env,
      NODE_OPTIONS: `--import=${recorder}`,
      RECORD_IMPORTS_FILE: importsFile,
      ...env(receiver),
    });
    const imports = readFileSync(importsFile, 'utf8').split('\n');
    return { run, spans: receiver.spans, requests: receiver.requests, imports, account: stack.sandbox.account };
  } finally {
    await receiver.close();
    await stack.close();
  }
}

/** Modules of the OpenTelemetry SDK, the exporter, the BullMQ add-on and the program's own tracing setup. */
const SDK_MODULE =
  /@opentelemetry\/(sdk-|exporter-|resources|otlp-)|bullmq-otel|src\/telemetry\/(tracing|call-spans|housekeeping-filter)\.[jt]s/;

const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan) => spans.filter((s) => s.parentSpanId === parent.spanId);
const jobSpanOf = (spans: ReceivedSpan[], orderId: string) =>
  spans.find((s) => s.name === 'process orders' && s.attributes['inventory.key'] === orderId);

/** Every text a span carries to the collector: name, attribute and event values, status message, resource. */
function textsOf(spans: ReceivedSpan[]): string[] {
  return spans.flatMap((s) => [
    s.name,
    s.status.message ?? '',
    ...Object.values(s.attributes).map(String),
    ...Object.keys(s.attributes),
    ...s.events.flatMap((e) => [e.name, ...Object.values(e.attributes).map(String)]),
    ...Object.values(s.resource).map(String),
  ]);
}

describe.concurrent('traces', () => {
  describe('with OTEL_EXPORTER_OTLP_ENDPOINT set, when one order syncs', () => {
    it('exports its trace: the job span, one span per service call under it with template, status, budget wait and attempt, and the outcome', async () => {
      const { run, spans, requests, imports, account } = await syncWith(['TR-1'], 'otel-on', (r) => ({
        OTEL_EXPORTER_OTLP_ENDPOINT: r.url,
      }));
      expect(run.code, run.stderr).toBe(0);
      expect(requests.every((r) => r.method === 'POST' && r.path === '/v1/traces' && r.contentType.startsWith('application/json'))).toBe(
        true,
      );
      expect(imports.some((u) => SDK_MODULE.test(u))).toBe(true);

      const job = jobSpanOf(spans, 'TR-1');
      expect(job, JSON.stringify(spans.map((s) => s.name))).toBeDefined();
      expect(job!.attributes).toMatchObject({
        'inventory.stream': 'orders',
        'inventory.attempt': 1,
        'inventory.outcome': 'synced',
        'bullmq.job.id': expect.stringMatching(/^orders-TR-1-/),
      });
      expect(job!.resource['service.name']).toBe('inventory-sync');

      // A trace per job, nothing else (BullMQ's housekeeping spans are dropped): one root, the job's enqueue span,
      // the attempt's job span under it, every call span under that.
      expect(spans.filter((s) => !s.parentSpanId).map((s) => s.name)).toEqual(['enqueue orders']);
      expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
      const enqueue = spans.find((s) => s.spanId === job!.parentSpanId);
      expect(enqueue).toMatchObject({ name: 'enqueue orders', traceId: job!.traceId });
      expect(enqueue!.parentSpanId).toBeUndefined();
      const calls = childrenOf(spans, job!).filter((s) => s.attributes['http.request.method']);
      expect(calls.map((c) => `${c.name} ${c.attributes['http.response.status_code']}`)).toEqual([
        'POST /api/order 200',
        'POST /api/shipment 200',
        'POST /api/shipment/{id} 200',
        'POST /api/order/{id}/complete 200',
      ]);
      expect(calls.map((c) => c.attributes['url.template'])).toEqual([
        '/{account}/api/order',
        '/{account}/api/shipment',
        '/{account}/api/shipment/{id}',
        '/{account}/api/order/{id}/complete',
      ]);
      for (const c of calls) {
        expect(c.traceId).toBe(job!.traceId);
        expect(c.kind).toBe(3); // CLIENT
        expect(c.attributes).toMatchObject({
          'http.request.method': 'POST',
          'inventory.attempt': 1,
          'inventory.outcome': 'ok',
          'inventory.request_class': 'post',
        });
        expect(typeof c.attributes['inventory.budget_wait_ms']).toBe('number');
        expect(JSON.stringify(c.attributes)).not.toContain(account);
        expect(JSON.stringify(c.attributes)).not.toContain('TR-1');
      }

      // No secret anywhere: credentials, their Basic form, the feed token, a URL with a password.
      const texts = textsOf(spans);
      const basic = Buffer.from(`${SECRETS.key}:${SECRETS.secret}`).toString('base64');
      for (const secret of [SECRETS.key, SECRETS.secret, SECRETS.token, basic]) expect(texts.filter((t) => t.includes(secret))).toEqual([]);
      expect(texts.filter((t) => /authorization|:\/\/[^/\s]*:[^/\s]*@/i.test(t))).toEqual([]);
    });
  });

  describe('when the answer to an order create is lost', () => {
    it('traces the settlement as a span, its read marked settle=true, under the job span', async () => {
      const { run, spans } = await syncWith(
        ['TR-LOST'],
        'otel-settle',
        (r) => ({ OTEL_EXPORTER_OTLP_ENDPOINT: r.url }),
        (stack) => stack.sandbox.admin.setFaults([{ kind: 'apply-then-drop', method: 'POST', path: '/api/order$', times: 1 }]),
      );
      expect(run.code, run.stderr).toBe(0);
      const job = jobSpanOf(spans, 'TR-LOST')!;
      expect(job.attributes['inventory.outcome']).toBe('synced');
      const direct = childrenOf(spans, job);
      const lost = direct.find((s) => s.name === 'POST /api/order')!;
      expect(lost.attributes).toMatchObject({ 'inventory.outcome': 'error', 'error.type': expect.any(String) });
      expect(lost.attributes['http.response.status_code']).toBeUndefined();
      const settle = direct.find((s) => s.name === 'settle create-order')!;
      expect(settle.attributes['inventory.settle.pending']).toBe('create-order');
      expect(
        childrenOf(spans, settle).map((s) => [s.name, s.attributes['http.response.status_code'], s.attributes['inventory.settle']]),
      ).toEqual([['GET /api/order/{id}', 200, true]]);
      expect(job.events.map((e) => e.name)).toContain('"create-order" had been applied; carrying on');
    });
  });

  describe('when an attempt fails and the job is retried', () => {
    it("puts every attempt in the job's one trace, the failed one with its error code", async () => {
      const { run, spans } = await syncWith(
        ['TR-RETRY'],
        'otel-retry',
        (r) => ({ OTEL_EXPORTER_OTLP_ENDPOINT: r.url }),
        (stack) => stack.sandbox.admin.setFaults([{ kind: 'status-503', method: 'POST', path: '/api/order$', times: 1 }]),
      );
      expect(run.code, run.stderr).toBe(0);
      const attempts = spans.filter((s) => s.name === 'process orders' && s.attributes['inventory.key'] === 'TR-RETRY');
      expect(attempts.map((a) => [a.attributes['inventory.attempt'], a.attributes['inventory.outcome']])).toEqual([
        [1, 'retry'],
        [2, 'synced'],
      ]);
      expect(attempts[0]!.attributes['inventory.error.code']).toBe('TRANSIENT');
      expect(attempts[0]!.status.code).toBe(2); // ERROR
      expect(new Set(attempts.map((a) => a.traceId)).size).toBe(1);
      expect(new Set(attempts.map((a) => a.parentSpanId)).size).toBe(1);
      const calls = childrenOf(spans, attempts[0]!).filter((s) => s.attributes['http.request.method']);
      expect(calls.map((s) => `${s.name} ${s.attributes['http.response.status_code']} ${s.attributes['error.type']}`)).toEqual([
        'POST /api/order 503 TRANSIENT',
      ]);
    });
  });

  describe('when worker is stopped with SIGTERM', () => {
    it('exports the spans still buffered before it exits', { timeout: 60_000 }, async () => {
      const stack = await startStack({ orders: [order('TR-W')] }, 'otel-worker');
      const receiver = await startOtlpReceiver();
      let worker: WorkerProcess | undefined;
      try {
        // Batches are due only every 10 minutes: what arrives is what the shutdown flushed.
        worker = startWorkerProcess({
          ...stack.env,
          LOG_LEVEL: 'info',
          ORDER_POLL_SECONDS: '1',
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_BSP_SCHEDULE_DELAY: '600000',
        });
        await worker.httpUrl;
        await eventually(
          async () =>
            stack.sandbox.admin
              .state()
              .orders.some((o: { orderId: string; statusId: string }) => o.orderId === 'TR-W' && o.statusId === 'ORDER_COMPLETED'),
          30_000,
          'order TR-W completed',
        ).catch((err: Error) => {
          throw new Error(`${err.message}\n${worker?.stdoutLines.join('\n')}\n${worker?.stderr()}`);
        });
        await new Promise((r) => setTimeout(r, 300));
        expect(receiver.requests).toEqual([]);
        const { code } = await worker.stop('SIGTERM');
        expect(code, worker.stderr()).toBe(0);
        const job = jobSpanOf(receiver.spans, 'TR-W');
        expect(job?.attributes['inventory.outcome']).toBe('synced');
        expect(childrenOf(receiver.spans, job!).filter((s) => s.attributes['http.request.method'])).toHaveLength(4);
      } finally {
        await worker?.stop('SIGKILL');
        await receiver.close();
        await stack.close();
      }
    });
  });

  describe('with tracing off', () => {
    it('loads no OpenTelemetry SDK module and exports nothing, by default and with OTEL_SDK_DISABLED=true', async () => {
      for (const env of [
        (): Record<string, string> => ({}),
        (r: OtlpReceiver) => ({ OTEL_EXPORTER_OTLP_ENDPOINT: r.url, OTEL_SDK_DISABLED: 'true' }),
      ]) {
        const { run, requests, imports } = await syncWith(['TR-OFF'], 'otel-off', env);
        expect(run.code, run.stderr).toBe(0);
        expect(imports.length).toBeGreaterThan(100);
        expect(imports.filter((u) => SDK_MODULE.test(u))).toEqual([]);
        expect(requests).toEqual([]);
      }
    });
  });
});
