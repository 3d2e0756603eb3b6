import { pino, type DestinationStream, type Logger } from 'pino';
import { attachLogThrottle, createLogThrottle } from './log-throttle.js';
import { REDACTION_MARK, SecretMatcher } from './secret-matcher.js';

export type { Logger } from 'pino';

export interface LoggerOptions {
  /** pino level. Default: info. */
  level?: string;
  /** Values that must never be written: replaced by [REDACTED] wherever they appear in a line, in every form (secretForms). */
  secrets?: string[];
  /** Where lines go. Default: stdout, pretty-printed when it is a terminal. */
  destination?: DestinationStream;
  /** Pretty-print for a person. Default: when stdout is a terminal and no destination is given. */
  pretty?: boolean;
  /** Lines of one repeated error (logRepeated) at most one per this many ms, shared by the logger's children. Default 30 000. */
  repeatIntervalMs?: number;
  /** The account of ACCOUNTS_FILE the lines are about: a field of every line. Default: none (the one account). */
  account?: string;
}

/** A string as it appears inside a JSON string (quotes, backslashes and control characters escaped). */
const jsonEscaped = (s: string) => JSON.stringify(s).slice(1, -1);

/**
 * Every secret and the forms it travels in: as is; JSON-escaped, once (in a log line) and twice (in a JSON text
 * logged as a string), so a secret with a quote or a backslash is found in the line too; URL-encoded; and the
 * base64 of key:secret of Basic credentials.
 */
export function secretForms(secrets: string[], basicPairs: Array<[string, string]> = []): string[] {
  const forms = new Set<string>();
  for (const s of secrets.filter((x) => x.length >= 3)) {
    const once = jsonEscaped(s);
    for (const form of [s, once, jsonEscaped(once), encodeURIComponent(s)]) forms.add(form);
  }
  for (const [key, secret] of basicPairs) forms.add(Buffer.from(`${key}:${secret}`).toString('base64'));
  return [...forms];
}

/** Where a logger keeps its SecretMatcher: children are made with Object.create of their parent, so they find it too. */
const REDACTIONS = Symbol('redactions');

/**
 * Teaches a logger (and its children, and the logger it is a child of) new secrets, e.g. credentials read again
 * from their files: from now on they are redacted as the ones given at start. Old ones stay redacted.
 */
export function addSecrets(logger: Logger, secrets: string[], basicPairs: Array<[string, string]> = []): void {
  (logger as unknown as { [REDACTIONS]?: SecretMatcher })[REDACTIONS]?.add(secretForms(secrets, basicPairs));
}

/** Keys whose values are never logged, whatever their case (`Authorization`, `authorization`) or depth. */
const SECRET_KEYS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'apikey',
  'apisecret',
  'token',
  'password',
]);
/** Deepest level searched for such keys (log objects are shallow; values are still redacted below). */
const MAX_KEY_DEPTH = 8;

/** The object with the value of every secret key replaced, copied only where something changes. */
export function redactKeys(value: unknown, depth = 0): unknown {
  // Errors go to pino's serializer as they are (a copy would lose message and stack); their text is redacted by value.
  if (value === null || typeof value !== 'object' || depth > MAX_KEY_DEPTH || value instanceof Error) return value;
  if (Array.isArray(value)) {
    const items = value.map((v) => redactKeys(v, depth + 1));
    return items.some((v, i) => v !== value[i]) ? items : value;
  }
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(value)) {
    const next = SECRET_KEYS.has(k.toLowerCase()) ? REDACTION_MARK : redactKeys(v, depth + 1);
    if (next !== v) (out ??= { ...(value as Record<string, unknown>) })[k] = next;
  }
  return out ?? value;
}

/** Replaces every occurrence of the secrets in a string (a few, e.g. an error's; the logger keeps its own matcher). */
export function redact(text: string, secrets: readonly string[]): string {
  return new SecretMatcher(secrets).redact(text);
}

/** The one logger factory: JSON lines, secrets redacted by key (any case, any depth) and by value (in every form). */
export function createLogger(opts: LoggerOptions = {}): Logger {
  const redactions = new SecretMatcher(secretForms(opts.secrets ?? []));
  const pretty = opts.pretty ?? (!opts.destination && process.stdout.isTTY === true);
  const options: pino.LoggerOptions = {
    level: opts.level ?? 'info',
    base: opts.account ? { pid: process.pid, account: opts.account } : { pid: process.pid },
    // pino's own redact paths match keys exactly (`authorization`, not `Authorization`): a walk instead.
    formatters: { log: (o) => redactKeys(o) as Record<string, unknown> },
    // Always on: secrets may be learned later (addSecrets). One pass over the line, whatever the number of secrets.
    hooks: { streamWrite: (line: string) => redactions.redact(line) },
  };
  const transport = { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } };
  const logger = opts.destination ? pino(options, opts.destination) : pretty ? pino({ ...options, transport }) : pino(options);
  Object.defineProperty(logger, REDACTIONS, { value: redactions });
  return withThrottle(redactChildBindings(logger), opts.repeatIntervalMs);
}

/**
 * An account's logger in a process of many (ACCOUNTS_FILE): a child of the process's logger, so its lines go where the
 * process's go and its secrets are redacted by the process's matcher (addSecrets on either teaches both), with the
 * account in every line, its own level, and its own throttle of repeated errors (one account's do not hold back
 * another's). A child, not a logger of its own: an account that pulls keeps it between its turns.
 */
export function accountLogger(parent: Logger, account: string, level: string): Logger {
  return attachLogThrottle(parent.child({ account }, { level }));
}

/**
 * pino gives a child's bindings to no formatter: they are redacted by key here. Children inherit this `child`
 * (pino makes each child with Object.create of its parent), so grandchildren are covered too.
 */
function redactChildBindings(logger: Logger): Logger {
  type Child = (this: Logger, bindings: pino.Bindings, options?: pino.ChildLoggerOptions) => Logger;
  const child = logger.child as unknown as Child;
  const redacted: Child = function (bindings, options) {
    return child.call(this, redactKeys(bindings) as pino.Bindings, options);
  };
  logger.child = redacted as unknown as Logger['child'];
  return logger;
}

/** A new root logger: its children share one throttle of repeated errors (src/log/log-throttle.ts). */
function withThrottle(logger: Logger, intervalMs: number | undefined): Logger {
  return attachLogThrottle(logger, createLogThrottle({ intervalMs }));
}
