import { deploymentWorkersOf } from '../../ops/worker-presence.js';
import { Command } from 'commander';
import type { AccountConfig } from '../../../config/accounts.js';
import { defaults } from '../../../config/defaults.js';
import type { CliIo } from '../../app/cli-io.js';
import { budgetsOf, loadAccounts, writeJson } from '../../app/command-context.js';
import { connectRedis } from '../../app/connect-redis.js';
import { ExitCode } from '../exit-codes.js';
import { withAccountQueues, writeOutcomes } from '../each-account.js';
import type { CommandResult } from '../command-result.js';
import { renderStatus } from '../render-status.js';
import { accountsStatusJson, renderAccountsStatus } from '../render-accounts-status.js';
import { readStatus } from '../../ops/status-report.js';
import { matchAccounts, pageOf, readAccountsStatus } from '../../ops/accounts-status.js';
import type { Kind } from '../../kinds/kind.js';
import { positive } from './options.js';

interface StatusOptions {
  json?: boolean;
  all?: boolean;
  summary?: boolean;
  match?: string;
  page?: number;
  limit?: number;
}

/**
 * `status [--json]`: queue counts, feed cursors, budget use, scheduled runs, failures by reason, of `--account`'s
 * account (or the only one). Over more than `statusSummaryAbove` accounts (or with `--summary`): the accounts counted by
 * their state, then a page of those that need a person; `--all` (and `--json` without `--summary`): each account's
 * whole status (a heading, or an object with `account`, each). `--match` and `--page`/`--limit` narrow either.
 */
export function statusCommand(io: CliIo, done: CommandResult, kinds: readonly Kind[]): Command {
  return new Command('status')
    .description('queue counts, feed cursors, budget use, last scheduled runs')
    .option('--json', 'machine-readable output')
    .option('--all', 'with many accounts: every account in full, a heading each (the default over few accounts)')
    .option('--summary', 'with several accounts: the counts and the accounts that need a person (the default over many)')
    .option('--match <text>', 'with several accounts: only those whose name holds TEXT (any case)')
    .option('--page <n>', 'with several accounts: the Nth page of the accounts listed', positive)
    .option('--limit <n>', `with several accounts: accounts a page lists (the summary: ${defaults.statusListLimit})`, positive)
    .action(async (o: StatusOptions) => {
      const accounts = loadAccounts(io, kinds);
      // One account (`--account`'s, or the file's only one): exactly as status always printed it.
      if (accounts.length === 1) return done(await fullStatus(io, accounts, kinds, o, false));
      if (o.summary || (!o.all && !o.json && accounts.length > defaults.statusSummaryAbove))
        return done(await summaryStatus(io, accounts, kinds, o));
      const chosen = matchAccounts(accounts, o.match, (a) => a.name);
      const { items } = pageOf(chosen, o.page ?? 1, o.limit ?? Math.max(1, chosen.length));
      if (!items.length) {
        if (o.json) writeJson(io, []);
        else io.stdout.write(`No account to show: ${chosen.length} of ${accounts.length} match, page ${o.page ?? 1}.\n`);
        return done(ExitCode.ok);
      }
      return done(await fullStatus(io, items, kinds, o, true));
    });
}

/** Each account's whole status, as `status` of one account reads it, a few accounts at a time. */
async function fullStatus(io: CliIo, accounts: readonly AccountConfig[], kinds: readonly Kind[], o: StatusOptions, several: boolean) {
  const outcomes = await withAccountQueues(
    io,
    accounts,
    kinds,
    async (queues, redis, { config }) => ({
      value: await readStatus(redis, queues, { budgets: budgetsOf(config), deploymentWorkers: deploymentWorkersOf(config) }),
      code: ExitCode.ok,
    }),
    { inFlight: defaults.statusReportsInFlight, several },
  );
  return writeOutcomes(io, outcomes, { json: o.json, text: renderStatus, toJson: (report) => report, several });
}

/** The accounts counted by their state, then a page of those that need a person (src/ops/accounts-status.ts). */
async function summaryStatus(io: CliIo, accounts: readonly AccountConfig[], kinds: readonly Kind[], o: StatusOptions) {
  const redis = await connectRedis(accounts[0]!.config.redis);
  try {
    const s = await readAccountsStatus(redis, accounts, kinds, {
      match: o.match,
      page: o.page ?? 1,
      limit: o.limit ?? defaults.statusListLimit,
    });
    if (o.json) writeJson(io, accountsStatusJson(s));
    else io.stdout.write(renderAccountsStatus(s));
    return ExitCode.ok;
  } finally {
    redis.disconnect();
  }
}
