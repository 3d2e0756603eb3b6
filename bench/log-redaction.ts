// The logger's redaction by value with many accounts: learning every account's secrets, then redacting log lines, by
// the one-pass matcher (src/log/secret-matcher.ts) and by the per-form loop the logger used before (kept here only as
// the baseline). `npx tsx bench/log-redaction.ts [--accounts 10000] [--lines 2000] [--cap 60]` (--cap: seconds the way
// before may spend learning before it is stopped)
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { addSecrets, createLogger, secretForms } from '../src/log/logger.js';
import { SecretMatcher } from '../src/log/secret-matcher.js';
import { median } from './lib/median.js';

/** One account's secrets as ACCOUNTS_FILE gives them (config/read-config.ts secretsOf): every tenth password has a quote and a backslash. */
function accountSecrets(i: number): { secrets: string[]; pair: [string, string] } {
  const hex = (n: number) => randomBytes(n).toString('hex');
  const key = `ak_${hex(16)}`;
  const secret = randomBytes(30).toString('base64url');
  const password = i % 10 === 0 ? `pw"${hex(4)}\\${hex(4)}` : `pw-${hex(8)}`;
  const webhook = `https://hooks.example.com/services/T${hex(6)}/${hex(12)}`;
  return { secrets: [key, secret, `tok-${hex(16)}`, password, webhook, `ing-${hex(16)}`, `hmac-${hex(20)}`], pair: [key, secret] };
}

/** What `worker` hands the logger for one account (src/app/command-context.ts secretValues): the forms of its secrets. */
const accountForms = (a: { secrets: string[]; pair: [string, string] }) => secretForms(a.secrets, [a.pair]);

/** The logger before: every form in a list kept longest first, re-sorted at each account learned, each tried on each line. */
class PerFormRedactions {
  forms: string[] = [];
  add(forms: string[]): void {
    const next = new Set([...this.forms, ...forms]);
    if (next.size !== this.forms.length) this.forms = [...next].sort((a, b) => b.length - a.length);
  }
  redact(text: string): string {
    let out = text;
    for (const s of this.forms) if (s && out.includes(s)) out = out.split(s).join('[REDACTED]');
    return out;
  }
}

/** Seconds to learn the accounts one at a time the way before, stopped after capSeconds (it grows with the square of the accounts). */
function learnTheWayBefore(accounts: string[][], capSeconds: number): { learnBeforeS: number; learnedBefore: number } {
  const old = new PerFormRedactions();
  const t0 = performance.now();
  let learnedBefore = 0;
  for (const forms of accounts) {
    old.add(secretForms(forms));
    learnedBefore++;
    if (performance.now() - t0 > capSeconds * 1000) break;
  }
  return { learnBeforeS: (performance.now() - t0) / 1000, learnedBefore };
}

/** Log lines as `worker` writes them: pino JSON of 150 to 400 characters, one in ten with a secret in it. */
function typicalLines(count: number, secrets: string[]): string[] {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const account = `acct-${String(i % 997).padStart(5, '0')}`;
    const head = `{"level":30,"time":${1_765_000_000_000 + i},"pid":4242,"account":"${account}"`;
    const secret = secrets[(i * 7919) % secrets.length]!;
    const bodies = [
      `,"jobId":"orders-R-${i}","key":"R-${i}","stream":"orders","calls":4,"ms":${i % 300},"msg":"order R-${i} synced: shipment SH-${i} created, 2 lines, 4 calls"}`,
      `,"stream":"stock","pulled":${i % 50},"cursor":"2026-12-06T07:${String(i % 60).padStart(2, '0')}:00.000Z","msg":"pull of stock: ${i % 50} records queued, next in 10 s"}`,
      `,"err":{"type":"ServiceError","message":"POST /api/shipment answered 503 (attempt 2 of 5)","code":"UNAVAILABLE"},"msg":"job orders-R-${i} failed; retried in 4 s"}`,
      `,"url":"https://feed.example.com/orders?since=${i}&token=${encodeURIComponent(secret)}","msg":"feed request failed"}`,
    ];
    lines.push(head + bodies[i % 10 === 9 ? 3 : i % 3]!);
  }
  return lines;
}

/** Microseconds a line: the median of `rounds` passes over the lines. */
function perLineMicros(lines: string[], rounds: number, redact: (line: string) => string): number {
  const runs: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    for (const line of lines) redact(line);
    runs.push(((performance.now() - t0) * 1000) / lines.length);
  }
  return median(runs);
}

/** The heap and its typed arrays after a full collection, MB. */
function heapMb(): number {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  const m = process.memoryUsage();
  return (m.heapUsed + m.arrayBuffers) / 2 ** 20;
}

export interface LogRedactionFigures {
  accounts: number;
  forms: number;
  /** Seconds to learn every account's secrets, one account at a time as `worker` starts them: the logger now (median of 3), and before. */
  learnNowS: number;
  learnBeforeS: number;
  /** Accounts the way before had learned when it was stopped (all of them when it finished under the cap). */
  learnedBefore: number;
  matcherMb: number;
  lines: number;
  withSecret: number;
  microsNow: number;
  microsBefore: number;
  loggerMicros: number;
  sameOutput: boolean;
}

/** Learning, then lines: both ways in one run, on the same secrets and lines. */
export function runLogRedaction(o: {
  accounts: number;
  lines: number;
  capSeconds: number;
  log: (line: string) => void;
}): LogRedactionFigures {
  const accounts = Array.from({ length: o.accounts }, (_, i) => accountForms(accountSecrets(i)));
  const sink = new Writable({ write: (_c, _e, cb) => cb() });
  const learnNow: number[] = [];
  let logger = createLogger({ destination: sink });
  for (let run = 0; run < 3; run++) {
    logger = createLogger({ destination: sink });
    const t0 = performance.now();
    for (const forms of accounts) addSecrets(logger, forms);
    logger.info('every account started'); // the next line builds what was learned
    learnNow.push((performance.now() - t0) / 1000);
  }
  o.log(`log-redaction: ${o.accounts} accounts learned by the matcher in ${median(learnNow).toFixed(2)} s (median of 3)`);
  const before0 = heapMb();
  const matcher = new SecretMatcher();
  for (const forms of accounts) matcher.add(secretForms(forms));
  matcher.redact('built');
  const matcherMb = heapMb() - before0;
  const { learnBeforeS, learnedBefore } = learnTheWayBefore(accounts, o.capSeconds);
  o.log(`log-redaction: the way before learned ${learnedBefore} accounts in ${learnBeforeS.toFixed(1)} s`);
  const old = new PerFormRedactions();
  old.add(accounts.flatMap((forms) => secretForms(forms)));
  const lines = typicalLines(o.lines, accounts.flat());
  const sample = lines.slice(0, Math.max(10, Math.min(lines.length, 200)));
  const sameOutput = sample.every((l) => matcher.redact(l) === old.redact(l));
  const microsNow = perLineMicros(lines, 15, (l) => matcher.redact(l));
  const microsBefore = perLineMicros(sample, 3, (l) => old.redact(l));
  const loggerMicros = perLineMicros(lines, 15, (l) => {
    logger.info({ line: l.length }, l);
    return l;
  });
  o.log(`log-redaction: a line: ${microsNow.toFixed(1)} µs by the matcher, ${microsBefore.toFixed(0)} µs the way before`);
  return {
    accounts: o.accounts,
    forms: matcher.size,
    learnNowS: median(learnNow),
    learnBeforeS,
    learnedBefore,
    matcherMb,
    lines: lines.length,
    withSecret: lines.filter((l) => l.includes('token=')).length,
    microsNow,
    microsBefore,
    loggerMicros,
    sameOutput,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { accounts: { type: 'string' }, lines: { type: 'string' }, cap: { type: 'string' } } });
  const f = runLogRedaction({
    accounts: Number(values.accounts ?? 10_000),
    lines: Number(values.lines ?? 2_000),
    capSeconds: Number(values.cap ?? 60),
    log: console.log,
  });
  console.log(JSON.stringify(f, null, 2));
}
