import { Command } from 'commander';
import type { CliIo } from '../../app/cli-io.js';
import { ExitCode } from '../exit-codes.js';
import type { CommandResult } from '../command-result.js';
import type { Kind } from '../../kinds/kind.js';

/**
 * `worker`: feed producers and workers until SIGTERM/SIGINT, and the push receiver when INGEST_PORT is set; then
 * stops taking pushes and jobs, gives active ones SHUTDOWN_GRACE_SECONDS to finish, and exits 0. Logs go to stdout as
 * JSON lines (pretty on a terminal). Without UPSTREAM_URL nothing is pulled: pushed and imported records only.
 */
export function workerCommand(io: CliIo, done: CommandResult, kinds: readonly Kind[]): Command {
  return new Command('worker')
    .description('run the feed producers (order polling, the stock-count schedule, BOM polling) and the workers until SIGTERM/SIGINT')
    .action(async () => {
      const { runWorker } = await import('./worker-run.js');
      await runWorker(io, kinds);
      done(ExitCode.ok);
    });
}
