import { Command, Option } from 'commander';
import type { StreamName } from '../../records/stream-name.js';
import type { CliIo } from '../../app/cli-io.js';
import { writeJson } from '../../app/command-context.js';
import { ExitCode, UsageError } from '../exit-codes.js';
import type { CommandResult } from '../command-result.js';
import { renderSyncSummary } from '../render-summary.js';
import { runProgress } from '../run-progress.js';
import { explainBudgetWaits, waitFactsOf } from '../budget-waits.js';
import type { Kind } from '../../kinds/kind.js';

/** `sync --once [--stream S]...`: pull until caught up, process until idle, sum up, exit 0 or 1. */
export function syncCommand(io: CliIo, done: CommandResult, kinds: readonly Kind[]): Command {
  return new Command('sync')
    .description('pull each stream until caught up, process every job until idle, print a summary, exit')
    .option('--once', 'run once and exit (the only mode; `worker` runs continuously)')
    .addOption(new Option('--stream <stream...>', 'only these streams (default: all)').choices(kinds.map((k) => k.stream)))
    .option('--json', 'machine-readable summary')
    .option('--dry-run', 'print what each record would do (its calls), writing nothing, queuing nothing, moving no cursor')
    .action(async (o: { once?: boolean; stream?: StreamName[]; json?: boolean; dryRun?: boolean }) => {
      if (!o.once) throw new UsageError('sync needs --once (to run continuously, use `worker`)');
      if (o.dryRun) {
        const [{ runDryRun }, { syncStreams }] = await Promise.all([import('./dry-run-action.js'), import('../../app/runtime.js')]);
        // What the run would work, in the order it would: each stream's jobs already queued (the push backlog), then its pull.
        const sources = (stream: StreamName) => [
          { stream, from: 'queue' as const },
          { stream, from: 'feed' as const },
        ];
        return runDryRun(io, done, {
          sources: (d) => syncStreams(d, kinds, o.stream).flatMap(sources),
          feed: true,
          json: o.json,
          kinds,
        });
      }
      // Loaded here, not at start: commands that do not run jobs start faster without them.
      const [{ openApp }, { syncOnce }] = await Promise.all([import('../../app/app-context.js'), import('../../app/runtime.js')]);
      const app = await openApp(io, { kinds, needs: { service: true, upstream: true }, logTo: io.stderr });
      const progress = runProgress(io, !o.json);
      // Its requests wait for budget: the first wait of each class is explained on stderr (stdout stays the summary).
      const facts = waitFactsOf(app.deps);
      const budgets = app.config.service?.budgets;
      const waits = facts ? explainBudgetWaits(io.stderr, app.deps.budget, budgets, { command: 'sync', facts }) : undefined;
      try {
        const summary = await syncOnce(app.deps, { kinds, streams: o.stream, onProgress: progress.onProgress, signal: io.stop });
        progress.stop();
        if (o.json) writeJson(io, summary);
        else io.stdout.write(renderSyncSummary(summary, 'Synced'));
        done(summary.ok ? ExitCode.ok : ExitCode.someFailed);
      } finally {
        waits?.stop();
        progress.stop();
        await app.close();
      }
    });
}
