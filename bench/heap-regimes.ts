/**
 * A worker of many polled accounts with and without V8's allocation-site pretenuring (issue 56): the program turns it
 * off for a worker of ACCOUNTS_FILE (src/app/many-accounts-heap.ts); `V8's default` preloads
 * bench/lib/v8-default-pretenuring.cjs, which keeps it on. Each round runs the two side by side, each on a Redis, feed
 * and sandbox of its own (bench/accounts-idle.ts: 1,000 accounts polling an empty feed every 10 s, one process), and
 * reads each process's RSS once a second through the measure: the median and the highest. Printed: each round's
 * figures, then each side's median over the rounds and their ratio.
 *
 *   npx tsx bench/heap-regimes.ts [--rounds 2] [--accounts 1000] [--seconds 120] [--settle 60]
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runAccountsIdle, type AccountsIdleFigures } from './accounts-idle.js';
import { median } from './lib/median.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SIDES = {
  'the program (no pretenuring)': undefined,
  "V8's default (pretenuring)": `--require ${join(ROOT, 'bench/lib/v8-default-pretenuring.cjs')}`,
} as const;
const mb = (bytes: number) => Math.round(bytes / 1024 / 102.4) / 10;

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '2' },
    accounts: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '120' },
    settle: { type: 'string', default: '60' },
  },
});
const say = (line: string) => process.stdout.write(`${line}\n`);
const got = new Map<string, AccountsIdleFigures[]>(Object.keys(SIDES).map((k) => [k, []]));
for (let round = 1; round <= Number(values.rounds); round++) {
  const runs = await Promise.all(
    Object.entries(SIDES).map(([side, nodeOptions]) =>
      runAccountsIdle({
        accounts: Number(values.accounts),
        processes: 1,
        pollSeconds: 10,
        seconds: Number(values.seconds),
        settle: Number(values.settle),
        ...(nodeOptions ? { nodeOptions } : {}),
      }).then((f) => [side, f] as const),
    ),
  );
  for (const [side, f] of runs) {
    got.get(side)!.push(f);
    say(
      `round ${round}, ${side}: RSS at rest ${mb(f.rssNowPerProcessBytes)} MB (median), ${mb(f.rssRestMaxPerProcessBytes)} MB ` +
        `(highest), peak ${mb(f.rssPerProcessBytes)} MB; ${f.opsPerSecondPerAccount} commands/s an account`,
    );
  }
}
const [ours, theirs] = [...got.values()].map((fs) => ({
  rest: median(fs.map((f) => f.rssNowPerProcessBytes)),
  max: median(fs.map((f) => f.rssRestMaxPerProcessBytes)),
}));
say(
  `median of ${values.rounds} rounds, ${values.accounts} polled accounts: RSS at rest ${mb(ours!.rest)} MB without pretenuring, ` +
    `${mb(theirs!.rest)} MB with (ratio ${Math.round((ours!.rest / theirs!.rest) * 100) / 100}); highest at rest ` +
    `${mb(ours!.max)} vs ${mb(theirs!.max)} MB (ratio ${Math.round((ours!.max / theirs!.max) * 100) / 100})`,
);
process.exit(0);
