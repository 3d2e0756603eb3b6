import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { describe, expect, it } from 'vitest';
import { jobTracing } from '../../src/telemetry/call-spans.js';

/** Issue 36: with ACCOUNTS_FILE, one collector receives every account's traces; each job span says whose it is. */
function traced(accountName: string | undefined) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const attempt = jobTracing(provider.getTracer('test'), 'svc-acct', accountName).attempt({
    stream: 'orders',
    jobId: 'orders-W-1',
    attempt: 1,
  });
  attempt.end('synced');
  const [span] = exporter.getFinishedSpans();
  return span!.attributes;
}

describe('job spans', () => {
  it("carry the account's name of ACCOUNTS_FILE as inventory.account", () => {
    expect(traced('acme')).toMatchObject({ 'inventory.account': 'acme', 'inventory.stream': 'orders', 'inventory.outcome': 'synced' });
  });

  it('carry no account attribute without the file', () => {
    expect(traced(undefined)).not.toHaveProperty('inventory.account');
  });
});
