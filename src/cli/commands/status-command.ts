import { Command } from 'commander';
import type { CliIo } from '../../app/cli-io.js';
import { budgetsOf, loadConfig, withQueues, writeJson } from '../../app/command-context.js';
import { ExitCode } from '../exit-codes.js';
import type { CommandResult } from '../command-result.js';
import { renderStatus } from '../render-status.js';
import { readStatus } from '../../ops/status-report.js';
import type { Kind } from '../../kinds/kind.js';

/** `status [--json]`: queue counts, feed cursors, budget use, scheduled runs, failures by reason. */
export function statusCommand(io: CliIo, done: CommandResult, kinds: readonly Kind[]): Command {
  return new Command('status')
    .description('queue counts, feed cursors, budget use, last scheduled runs')
    .option('--json', 'machine-readable output')
    .action(async (o: { json?: boolean }) => {
      const config = loadConfig(io, kinds);
      const report = await withQueues(config, kinds, (queues, redis) => readStatus(redis, queues, { budgets: budgetsOf(config) }));
      if (o.json) writeJson(io, report);
      else io.stdout.write(renderStatus(report));
      done(ExitCode.ok);
    });
}
