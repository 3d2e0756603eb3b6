import { describe, expect, it } from 'vitest';
import { readConfig, secretsOf } from '../../config/read-config.js';

describe('tracing configuration', () => {
  it.each([
    [{}, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'TRUE' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'false' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_EXPORTER: 'none' }, false],
    [{ OTEL_EXPORTER_OTLP_HEADERS: 'api-key=abc' }, false],
  ])('%j: tracing on is %s', (env, enabled) => {
    expect(readConfig(env).tracing.enabled).toBe(enabled);
  });

  it('treats the collector headers and an endpoint password as secrets', () => {
    const config = readConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://user:pa%24%24word@collector.example.com',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-honeycomb-team=hc-key-123,other=v%20two',
    });
    expect(secretsOf(config)).toEqual(expect.arrayContaining(['hc-key-123', 'v%20two', 'v two', 'pa$$word']));
  });

  it('refuses an endpoint that is not an http(s) URL, naming the variable', () => {
    expect(() => readConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4317' })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/,
    );
  });
});
