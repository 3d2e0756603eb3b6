import { Command, Option } from 'commander';
import type { StreamName } from '../../records/stream-name.js';
import type { CliIo } from '../../app/cli-io.js';
import { writeJson } from '../../app/command-context.js';
import { ExitCode } from '../exit-codes.js';
import type { CommandResult } from '../command-result.js';
import { renderResync } from '../render-repair.js';
import type { Kind } from '../../kinds/kind.js';
import { waitFactsOf, watchBudgetWaits } from '../budget-waits.js';

/** `resync <key>... [--stream S] [--dry-run] [--json]`: exit 0 every key resynced, 1 one not found or failed. */
export function resyncCommand(io: CliIo, done: CommandResult, kinds: readonly Kind[]): Command {
  return new Command('resync')
    .description(
      'send records through their job again from their newest recorded version, even if marked synced; ' +
        'the job reads the service and writes only what it lacks',
    )
    .argument('<key...>', 'orderId, countId or productId')
    .addOption(new Option('--stream <stream>', 'only this stream (a key in several)').choices(kinds.map((k) => k.stream)))
    .option('--dry-run', 'show each plan (the calls it would make) and write nothing')
    .option('--json', 'machine-readable output')
    .action(async (keys: string[], o: { stream?: StreamName; dryRun?: boolean; json?: boolean }) => {
      const [{ openApp }, { resyncKeys }] = await Promise.all([import('../../app/app-context.js'), import('../../app/resync.js')]);
      const app = await openApp(io, { kinds, needs: { service: true }, logTo: io.stderr });
      // Its jobs' requests wait for budget as a sync's do: said on stderr when they do.
      const waits = watchBudgetWaits(io.stderr, app.deps.budget, app.config.service?.budgets, {
        title: 'resync',
        facts: waitFactsOf(app.deps),
      });
      try {
        const report = await resyncKeys(app.deps, keys, { streams: o.stream ? [o.stream] : undefined, signal: io.stop });
        app.logger.info({ run: report.run, keys: keys.length, ok: report.ok }, 'resync done');
        if (o.json) writeJson(io, report);
        else io.stdout.write(renderResync(report));
        done(report.ok ? ExitCode.ok : ExitCode.someFailed);
      } finally {
        waits.stop();
        await app.close();
      }
    });
}
