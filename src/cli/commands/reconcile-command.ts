import { Command, Option } from 'commander';
import type { StreamName } from '../../records/stream-def.js';
import type { CliIo } from '../../app/cli-io.js';
import { writeJson } from '../../app/command-context.js';
import { ExitCode } from '../exit-codes.js';
import type { CommandResult } from '../command-result.js';
import { renderReconcile } from '../render-reconcile.js';
import type { OpsKind } from '../../ops/ops-kind.js';

/** `reconcile [--stream S]... [--json]`: the service against what was synced; exit 0 no drift, 1 drift found. */
export function reconcileCommand(io: CliIo, done: CommandResult, kinds: readonly OpsKind[]): Command {
  return new Command('reconcile')
    .description('compare the service with what the program recorded as synced and report every drift (exit 1 when something drifted)')
    .addOption(new Option('--stream <stream...>', 'only these streams').choices(kinds.map((k) => k.stream)))
    .option('--deep', 'also read every synced order (one GET each) to compare its lines, not only their total')
    .option('--json', 'machine-readable output')
    .action(async (o: { stream?: StreamName[]; deep?: boolean; json?: boolean }) => {
      const [{ openApp }, { reconcile, storeReport }] = await Promise.all([
        import('../../app/app-context.js'),
        import('../../ops/reconcile.js'),
      ]);
      const app = await openApp(io, { needs: { service: true }, logTo: io.stderr });
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
        if (o.json) writeJson(io, report);
        else io.stdout.write(renderReconcile(report));
        done(report.ok ? ExitCode.ok : ExitCode.someFailed);
      } finally {
        await app.close();
      }
    });
}
