/**
 * The report's section of issue 56, item 5: `status` over 1,000 and 10,000 accounts (bench/accounts-status.ts), the
 * summary against every account's whole status.
 */
import { runAccountsStatus, type StatusRun } from '../accounts-status.js';
import type { BenchOptions } from './bench-options.js';
import type { Part } from './bench-doc.js';
import { markdownTable } from './tables.js';

type Measured = Pick<Part, 'title' | 'body'>;
const ratio = (a: number, b: number) => `${(a / Math.max(0.01, b)).toFixed(1)}x`;

/** `npm run bench -- --only accounts-status` (`--quick`: 1,000 accounts only). */
export async function accountsStatusSection(o: BenchOptions, say: (line: string) => void): Promise<Measured> {
  const counts = o.accounts ? [o.accounts] : o.quick ? [1000] : [1000, 10_000];
  const allUpTo = 1000;
  const runs = await runAccountsStatus({ accounts: counts, allUpTo, log: say });
  const find = (n: number, command: string) => runs.find((r) => r.accounts === n && r.command === command);
  const summary = find(Math.min(...counts), 'inventory-sync status');
  const all = find(Math.min(...counts), 'inventory-sync status --all');
  const largest = find(Math.max(...counts), 'inventory-sync status');
  const row = (r: StatusRun) => [r.accounts, `\`${r.command}\``, r.seconds, r.cpuSeconds, r.lines, Math.round(r.bytes / 1024)];
  return {
    title: 'status over many accounts',
    body: [
      'One ACCOUNTS_FILE of N accounts, each with the keys of an idle account that pulls (its feeds caught up a minute ago), one in a hundred ' +
        'needing a person (the service down, a stream paused or a pull failing, in turn); the real command (src/cli/program.ts, in the bench ' +
        "process) timed end to end: the file read, Redis's reads, the text. CPU: the process's (user + system), which the machine's other load " +
        `moves less than the wall time. \`status\` over many accounts is the summary (docs/accounts.md, "status over many accounts"); ` +
        `\`status --all\` every account's whole status, as \`status\` printed it before (measured up to ${allUpTo} accounts).`,
      '',
      `Command: \`npx tsx bench/accounts-status.ts --accounts ${counts.join(',')} --all-up-to ${allUpTo}\``,
      '',
      markdownTable(['accounts', 'command', 'seconds', 'CPU s', 'lines', 'KB'], runs.map(row)),
      '',
      summary && all
        ? `At ${summary.accounts} accounts the summary takes **${summary.seconds} s** (${summary.cpuSeconds} s CPU) and ${summary.lines} lines; ` +
          `every account in full ${all.seconds} s and ${all.lines} lines: **${ratio(all.seconds, summary.seconds)}** the time ` +
          `(${ratio(all.cpuSeconds, summary.cpuSeconds)} the CPU).`
        : '',
      '',
      largest ? `At ${largest.accounts} accounts: **${largest.seconds} s** (${largest.cpuSeconds} s CPU), ${largest.lines} lines.` : '',
    ],
  };
}
