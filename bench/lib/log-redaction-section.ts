import { runLogRedaction } from '../log-redaction.js';
import type { BenchOptions } from './bench-options.js';
import { markdownTable } from './tables.js';

const n = (x: number) => x.toLocaleString('en');
const ratio = (before: number, now: number) => `${n(Math.round(before / Math.max(now, 1e-9)))}x`;

/** Section 18 of docs/benchmarks.md: the logger's redaction by value with 10,000 accounts (issue 56). */
export async function logRedactionSection(o: BenchOptions, say: (line: string) => void) {
  const accounts = o.accounts ?? (o.quick ? 2_000 : 10_000);
  const lines = 2_000;
  say(`log-redaction: ${n(accounts)} accounts' secrets, learned then redacted from ${n(lines)} log lines, both ways`);
  const capSeconds = 60;
  const f = runLogRedaction({ accounts, lines, capSeconds, log: say });
  const command = `npx tsx bench/log-redaction.ts --accounts ${accounts} --lines ${lines} --cap ${capSeconds}`;
  const finished = f.learnedBefore === accounts;
  const before = finished ? f.learnBeforeS.toFixed(1) : `over ${capSeconds} (${n(f.learnedBefore)} accounts by then)`;
  const beforeText = finished
    ? `${before} s before (one run)`
    : `over ${capSeconds} s before (one run, stopped there with ${n(f.learnedBefore)} of the ${n(accounts)} accounts learned: ` +
      're-sorting every form at each account learned grows with the square of the accounts)';
  const learnRatio = `${finished ? '' : 'over '}${ratio(f.learnBeforeS, f.learnNowS)}`;
  return {
    title: "The logger's redaction with many accounts: learning their secrets, and a log line",
    body: [
      `Each of ${n(accounts)} accounts has an API key and secret, an upstream token, a dashboard password (every tenth with a quote and a backslash), ` +
        'an alert webhook URL, an ingest secret and an HMAC secret. Learning is what `worker` does as it starts the accounts: ' +
        "each account's secretValues (the forms of its secrets) taught to the logger with `addSecrets`, one account after another, " +
        `then the next line: ${n(f.forms)} forms in all. The lines are pino JSON lines of 150 to 400 characters as a worker writes them ` +
        `(an order synced, a pull, a failed job; ${n(f.withSecret)} of ${n(f.lines)} with a URL-encoded secret in a URL). ` +
        'Now: the one-pass matcher (src/log/secret-matcher.ts). Before: the per-form loop the logger used until then ' +
        '(each form tried on each line, the list re-sorted at each account learned), kept in bench/log-redaction.ts as the baseline. ' +
        `Both redacted the first 200 lines alike: ${f.sameOutput ? 'yes' : 'NO'}.`,
      '',
      `Command: \`${command}\` (the section \`npm run bench -- --only log-redaction\` runs)`,
      '',
      markdownTable(
        ['', 'now (one pass)', 'before (per form)', 'before / now'],
        [
          [`learning ${n(accounts)} accounts, s`, f.learnNowS.toFixed(2), before, learnRatio],
          ['redacting a line, µs (median)', f.microsNow.toFixed(1), n(Math.round(f.microsBefore)), ratio(f.microsBefore, f.microsNow)],
        ],
      ),
      '',
      `Learning: **${f.learnNowS.toFixed(2)} s** now (median of 3 runs) against ${beforeText}. ` +
        `A line: **${f.microsNow.toFixed(1)} µs** (the median of 15 passes over the lines; before: of 3 over the first 200) against ${n(Math.round(f.microsBefore))} µs, **${ratio(f.microsBefore, f.microsNow)}**; ` +
        `a whole \`logger.info\` of such a line (pino's serializing included) ${f.loggerMicros.toFixed(0)} µs. ` +
        `The matcher adds ${f.matcherMb.toFixed(1)} MB for the ${n(accounts)} accounts (heap and typed arrays, after a collection: its automata, and the forms that exist only in it).`,
    ],
  };
}
