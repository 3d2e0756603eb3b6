import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger } from 'pino';

export interface LoggerOptions {
  /** pino level. Default: info. */
  level?: string;
  /** Values that must never be written: replaced by [REDACTED] wherever they appear in a line. */
  secrets?: string[];
  /** Where lines go. Default: stdout, pretty-printed when it is a terminal. */
  destination?: DestinationStream;
  /** Pretty-print for a person. Default: when stdout is a terminal and no destination is given. */
  pretty?: boolean;
}

/** Every secret and the forms it travels in (Basic credentials are base64 of key:secret). */
export function secretForms(secrets: string[], basicPairs: Array<[string, string]> = []): string[] {
  const forms = new Set(secrets.filter((s) => s.length >= 3));
  for (const [key, secret] of basicPairs) forms.add(Buffer.from(`${key}:${secret}`).toString('base64'));
  return [...forms].sort((a, b) => b.length - a.length);
}

/** Replaces every occurrence of a secret in a string. */
export function redact(text: string, secrets: string[]): string {
  let out = text;
  for (const s of secrets) if (s && out.includes(s)) out = out.split(s).join('[REDACTED]');
  return out;
}

/** The one logger factory: JSON lines, secrets redacted by key and by value. */
export function createLogger(opts: LoggerOptions = {}): Logger {
  const secrets = (opts.secrets ?? []).filter((s) => s.length >= 3);
  const pretty = opts.pretty ?? (!opts.destination && process.stdout.isTTY === true);
  const options: pino.LoggerOptions = {
    level: opts.level ?? 'info',
    base: { pid: process.pid },
    redact: {
      paths: ['authorization', 'headers.authorization', '*.authorization', 'apiKey', 'apiSecret', 'token', 'password', '*.password', '*.apiSecret', '*.token'],
      censor: '[REDACTED]',
    },
    // An explicit `hooks: undefined` would replace pino's default hooks and break the logger.
    ...(secrets.length ? { hooks: { streamWrite: (line: string) => redact(line, secrets) } } : {}),
  };
  if (opts.destination) return pino(options, opts.destination);
  if (pretty) return pino({ ...options, transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } } });
  return pino(options);
}
