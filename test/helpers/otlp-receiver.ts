import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An attribute value of OTLP/JSON, read back as a plain value. */
type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
};
interface KeyValue {
  key: string;
  value: AnyValue;
}
export type Attrs = Record<string, unknown>;

/** A span as the receiver got it, with its attributes decoded. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Attrs;
  events: Array<{ name: string; attributes: Attrs }>;
  status: { code?: number; message?: string };
  resource: Attrs;
  scope: string;
}

function valueOf(v: AnyValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

const attrs = (list: KeyValue[] | undefined): Attrs => Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));

/** A local OTLP/HTTP trace receiver (JSON encoding) on port 0: what an OpenTelemetry collector would get. */
export interface OtlpReceiver {
  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it (the exporter posts to /v1/traces). */
  url: string;
  spans: ReceivedSpan[];
  /** Every request's path, method and content type. */
  requests: Array<{ method: string; path: string; contentType: string }>;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: OtlpReceiver['requests'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', path: req.url ?? '', contentType: req.headers['content-type'] ?? '' });
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const rs of body.resourceSpans ?? []) {
        const resource = attrs(rs.resource?.attributes);
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              traceId: s.traceId,
              spanId: s.spanId,
              ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
              name: s.name,
              kind: s.kind,
              attributes: attrs(s.attributes),
              events: (s.events ?? []).map((e: { name: string; attributes?: KeyValue[] }) => ({
                name: e.name,
                attributes: attrs(e.attributes),
              })),
              status: s.status ?? {},
              resource,
              scope: ss.scope?.name ?? '',
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
