import { Command, Option } from 'commander';
import type { StreamName } from '../../records/stream-name.js';
import type { CliIo } from '../../app/cli-io.js';
import { loadAccounts, writeJson } from '../../app/command-context.js';
import { runEachAccount, writeOutcomes } from '../each-account.js';
import { ExitCode } from '../exit-codes.js';
import type { CommandResult } from '../command-result.js';
import { renderReconcile } from '../render-reconcile.js';
import { UsageError } from '../exit-codes.js';
import { renderRepair } from '../render-repair.js';
import type { Kind } from '../../kinds/kind.js';
import type { AppContext } from '../../app/app-context.js';
import { announceCollectionWait, waitFactsOf, watchBudgetWaits } from '../budget-waits.js';

interface ReconcileFlags {
  stream?: StreamName[];
  deep?: boolean;
  json?: boolean;
  repair?: boolean;
  dryRun?: boolean;
  includeStock?: boolean;
}

/** `reconcile --repair`: exit 0 nothing left drifted (dry run: every drift has a repair), 1 something left or failed. */
async function repairAction(io: CliIo, done: CommandResult, o: ReconcileFlags, kinds: readonly Kind[]): Promise<void> {
  const [{ openApp }, { repairDrifts }] = await Promise.all([import('../../app/app-context.js'), import('../../app/repair.js')]);
  const app = await openApp(io, { kinds, needs: { service: true }, logTo: io.stderr });
  const command = o.dryRun ? 'reconcile --repair --dry-run' : 'reconcile --repair';
  const waits = await sayBudgetWaits(io, app, command);
  try {
    const report = await repairDrifts(app.deps, {
      streams: o.stream,
      deep: o.deep,
      optIns: new Set(o.includeStock ? ['include-stock'] : []),
      signal: io.stop,
    });
    app.logger.info({ run: report.run, items: report.items.length, ok: report.ok }, o.dryRun ? 'repair dry run done' : 'repair done');
    if (o.json) writeJson(io, report);
    else io.stdout.write(renderRepair(report));
    done(report.ok ? ExitCode.ok : ExitCode.someFailed);
  } finally {
    waits.stop();
    await app.close();
  }
}

/**
 * Before and while reconcile reads: the collection budget it waits on and an estimate (from the last reconcile's
 * reads), then its progress; on stderr, so that stdout stays the report (and --json stays JSON).
 */
async function sayBudgetWaits(io: CliIo, app: AppContext, command: string): Promise<{ stop(): void }> {
  const { readLastReport } = await import('../../ops/reconcile.js');
  const budgets = app.config.service?.budgets;
  const last = await readLastReport(app.redis, app.deps.keys.prefix).catch(() => undefined);
  const reads = last?.calls.collection || undefined;
  await announceCollectionWait(io.stderr, app.deps.budget, budgets, { command, reads });
  return watchBudgetWaits(io.stderr, app.deps.budget, budgets, { title: command, reads, facts: waitFactsOf(app.deps) });
}

/**
 * `reconcile [--stream S]... [--json]`: the service against what was synced; exit 0 no drift, 1 drift found. Every
 * account of ACCOUNTS_FILE (the worst account's code), or `--account`'s; `--repair` writes to one: `--account` (or
 * the only one).
 */
export function reconcileCommand(io: CliIo, done: CommandResult, kinds: readonly Kind[]): Command {
  return new Command('reconcile')
    .description('compare the service with what the program recorded as synced and report every drift (exit 1 when something drifted)')
    .addOption(new Option('--stream <stream...>', 'only these streams').choices(kinds.map((k) => k.stream)))
    .option('--deep', 'also read every synced order (one GET each) to compare its lines, not only their total')
    .option('--repair', 'then repair each drift the API allows, through its job (a job per record); exit 1 when something is left')
    .option('--dry-run', 'with --repair: show every call the repairs would make, write nothing')
    .option('--include-stock', 'with --repair: also set drifted stock back to the count (less what synced orders shipped since)')
    .option('--json', 'machine-readable output')
    .action(async (o: ReconcileFlags) => {
      if (!o.repair && (o.dryRun || o.includeStock)) throw new UsageError('--dry-run and --include-stock go with --repair');
      if (o.repair) return repairAction(io, done, o, kinds);
      const [{ openApp }, { reconcile, storeReport }] = await Promise.all([
        import('../../app/app-context.js'),
        import('../../ops/reconcile.js'),
      ]);
      // Every account of ACCOUNTS_FILE (a heading, or an object with `account`, each), or --account's; each its own service.
      const accounts = loadAccounts(io, kinds, { service: true });
      const outcomes = await runEachAccount(io, accounts, async ({ config }) => {
        const app = await openApp(io, { kinds, needs: { service: true }, logTo: io.stderr, config });
        const waits = await sayBudgetWaits(io, app, 'reconcile');
        try {
          const { deps } = app;
          const report = await reconcile(
            {
              client: deps.client,
              catalog: deps.catalog,
              redis: deps.redis,
              prefix: deps.keys.prefix,
              queues: deps.queues,
              kinds: deps.kinds,
            },
            o.stream,
            { deep: o.deep },
          );
          await storeReport(deps.redis, report);
          app.logger.info({ drifts: report.drifts.length, checked: report.checked, calls: report.calls }, 'reconcile done');
          return { value: report, code: report.ok ? ExitCode.ok : ExitCode.someFailed };
        } finally {
          waits.stop();
          await app.close();
        }
      });
      done(writeOutcomes(io, outcomes, { json: o.json, text: renderReconcile, toJson: (report) => report }));
    });
}
