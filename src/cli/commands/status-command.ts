import { Command } from 'commander';
import type { CliIo } from '../../app/cli-io.js';
import { budgetsOf, loadAccounts } from '../../app/command-context.js';
import { ExitCode } from '../exit-codes.js';
import { withAccountQueues, writeOutcomes } from '../each-account.js';
import type { CommandResult } from '../command-result.js';
import { renderStatus } from '../render-status.js';
import { readStatus } from '../../ops/status-report.js';
import type { Kind } from '../../kinds/kind.js';

/**
 * `status [--json]`: queue counts, feed cursors, budget use, scheduled runs, failures by reason; of every account of
 * ACCOUNTS_FILE (a heading, or an object with `account`, each), or of `--account`'s.
 */
export function statusCommand(io: CliIo, done: CommandResult, kinds: readonly Kind[]): Command {
  return new Command('status')
    .description('queue counts, feed cursors, budget use, last scheduled runs')
    .option('--json', 'machine-readable output')
    .action(async (o: { json?: boolean }) => {
      const accounts = loadAccounts(io, kinds);
      const outcomes = await withAccountQueues(io, accounts, kinds, async (queues, redis, { config }) => ({
        value: await readStatus(redis, queues, { budgets: budgetsOf(config) }),
        code: ExitCode.ok,
      }));
      done(writeOutcomes(io, outcomes, { json: o.json, text: renderStatus, toJson: (report) => report }));
    });
}
