import type { Env } from './schema.js';

/** Whether traces are exported, and the values of the OTEL_* settings that must never be logged. */
export interface TracingConfig {
  /** OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT is set, OTEL_SDK_DISABLED is not true and OTEL_TRACES_EXPORTER is not none. */
  enabled: boolean;
  /** Header values of OTEL_EXPORTER_OTLP_(TRACES_)HEADERS (a collector's API key) and an endpoint's password. */
  secrets: string[];
}

/** The values of `key=value,...` (W3C baggage form, values URL-encoded), as the SDK reads the headers variables. */
function headerValues(headers: string | undefined): string[] {
  if (!headers) return [];
  return headers.split(',').flatMap((pair) => {
    const value = pair.slice(pair.indexOf('=') + 1).trim();
    if (!pair.includes('=') || !value) return [];
    try {
      return [value, decodeURIComponent(value)];
    } catch {
      return [value];
    }
  });
}

function passwordOf(url: string | undefined): string[] {
  const password = url && URL.canParse(url) ? new URL(url).password : '';
  return password ? [password, decodeURIComponent(password)] : [];
}

/** The OpenTelemetry SDK reads the OTEL_* variables itself; the program only decides whether to load it at all. */
export function tracingConfig(e: Env): TracingConfig {
  const endpoint = e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? e.OTEL_EXPORTER_OTLP_ENDPOINT;
  const disabled = e.OTEL_SDK_DISABLED?.toLowerCase() === 'true' || e.OTEL_TRACES_EXPORTER?.toLowerCase() === 'none';
  const secrets = [
    ...headerValues(e.OTEL_EXPORTER_OTLP_HEADERS),
    ...headerValues(e.OTEL_EXPORTER_OTLP_TRACES_HEADERS),
    ...passwordOf(e.OTEL_EXPORTER_OTLP_ENDPOINT),
    ...passwordOf(e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT),
  ];
  return { enabled: endpoint !== undefined && !disabled, secrets: [...new Set(secrets)] };
}
