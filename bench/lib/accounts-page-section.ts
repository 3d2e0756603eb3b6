/**
 * The report's section of issue 56 for the dashboard: the all-accounts page at many accounts against the page as
 * released (bench/accounts-page.ts).
 */
import { BEFORE_REF, runAccountsPage, type PageFigures } from '../accounts-page.js';
import type { BenchOptions } from './bench-options.js';
import type { Part } from './bench-doc.js';
import { markdownTable } from './tables.js';

type Measured = Pick<Part, 'title' | 'body'>;
const kb = (bytes: number) => Math.round(bytes / 1024);

/** `npm run bench -- --only accounts-page [--accounts 10000] [--runs 5]`. */
export async function accountsPageSection(o: BenchOptions, say: (line: string) => void): Promise<Measured> {
  const accounts = o.accounts ?? (o.quick ? 1_000 : 10_000);
  const runs = Math.max(3, o.runs);
  const [was, now] = (await runAccountsPage({ accounts, runs, runsBefore: 1, log: say })) as [PageFigures, PageFigures];
  const row = (f: PageFigures, what: string) => [
    what,
    f.accounts.toLocaleString('en'),
    f.startSeconds,
    kb(f.bytes).toLocaleString('en'),
    f.rows,
    f.seconds.length,
    f.medianSeconds,
    f.peakRssMb ?? 'n/a',
    f.pausedFirst ? 'yes' : 'no',
  ];
  const bytesRatio = Math.round((was.bytes / now.bytes) * 10) / 10;
  const timeRatio = Math.round((was.medianSeconds / now.medianSeconds) * 10) / 10;
  return {
    title: "The dashboard's all-accounts page at many accounts",
    body: [
      `${accounts.toLocaleString('en')} accounts in one ACCOUNTS_FILE on one redis-server, each with its feed state (polled, caught up) and three ` +
        'of them needing a person (a stream paused, the service down, a call held). The real `inventory-sync dashboard --no-auth` of each ' +
        `version, from source through tsx, one after the other: the page as released (commit ${BEFORE_REF.slice(0, 7)}, taken with \`git archive\`), ` +
        "then this one. Per dashboard: seconds from the spawn to the first answer of `/`, then the bytes of `/` and the seconds to its whole answer, each request a read of every account's state " +
        "(this page's requests are spaced past its 5 s cache), and the process's peak memory (VmHWM). The released page reads every account's queues one call at a time and lists every account, and each of its pages every account's name.",
      '',
      `Command: \`npx tsx bench/accounts-page.ts --accounts ${accounts} --runs ${runs} --runs-before 1\``,
      '',
      markdownTable(
        ['page', 'accounts', 'first answer after s', 'page KB', 'rows', 'requests', 'median s a request', 'peak MB', 'paused first'],
        [row(was, `released (${BEFORE_REF.slice(0, 7)})`), row(now, 'this one')],
      ),
      '',
      `The page is **${bytesRatio}×** smaller (${kb(was.bytes).toLocaleString('en')} KB → ${kb(now.bytes)} KB: 50 rows whatever the accounts) and answers ` +
        `**${timeRatio}×** faster (median ${was.medianSeconds} s → ${now.medianSeconds} s; ${runs} requests, ${was.seconds.length} of the released page).`,
    ],
  };
}
