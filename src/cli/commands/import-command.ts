import { existsSync } from 'node:fs';
import { Command } from 'commander';
import { logEvictionWarning } from '../../redis/eviction-policy.js';
import { importNdjson, type ImportResult } from '../../feed/importer.js';
import { createQueues } from '../../queue/queues.js';
import type { SyncSummary } from '../../app/runtime.js';
import type { StreamName } from '../../records/stream-def.js';
import type { CliIo } from '../../app/cli-io.js';
import { commandLogger, loadConfig, writeJson } from '../../app/command-context.js';
import { connectRedis } from '../../app/connect-redis.js';
import { ExitCode, UsageError } from '../exit-codes.js';
import type { CommandResult } from '../command-result.js';
import { renderImport, renderSyncSummary } from '../render-summary.js';
import { runProgress } from '../run-progress.js';
import { positive } from './options.js';
import { findDef } from '../../records/records.js';
import type { Kind } from '../../kinds/kind.js';

/** Queues only: needs Redis, not the service. */
async function queueOnly(
  io: CliIo,
  def: Kind,
  file: string,
  batchSize: number | undefined,
  onProgress: ReturnType<typeof runProgress>['onProgress'],
  kinds: readonly Kind[],
): Promise<ImportResult> {
  const config = loadConfig(io, kinds);
  const logger = commandLogger(config, io.stderr);
  const redis = await connectRedis(config.redis, { logger });
  await logEvictionWarning(redis, logger);
  const stream = def.stream;
  const queues = createQueues({ connection: redis, prefix: config.redis.prefix, jobs: config.jobs, streams: [stream] });
  try {
    return await importNdjson({
      def,
      source: file,
      stdin: io.stdin,
      queues,
      redis,
      logger,
      batchSize,
      maxLineBytes: config.limits.maxRecordBytes,
      signal: io.stop,
      onProgress: (progress) => onProgress({ phase: 'imported', stream, progress }),
    });
  } finally {
    await queues.close();
    redis.disconnect();
  }
}

/** Queues and works them off, as sync --once does. */
async function queueAndProcess(
  io: CliIo,
  kind: Kind,
  file: string,
  batchSize: number | undefined,
  onProgress: ReturnType<typeof runProgress>['onProgress'],
  kinds: readonly Kind[],
) {
  const [{ openApp }, { importAndMaybeProcess }] = await Promise.all([import('../../app/app-context.js'), import('../../app/runtime.js')]);
  const app = await openApp(io, { kinds, needs: { service: true }, logTo: io.stderr });
  try {
    return await importAndMaybeProcess(app.deps, {
      kinds: [kind],
      stream: kind.stream,
      source: file,
      stdin: io.stdin,
      process: true,
      batchSize,
      onProgress,
      signal: io.stop,
    });
  } finally {
    await app.close();
  }
}

/** `import <stream> <file|->` [--process]: queue an NDJSON file's records (and work them off). */
export function importCommand(io: CliIo, done: CommandResult, kinds: readonly Kind[]): Command {
  return new Command('import')
    .description('queue the records of an NDJSON file (- for stdin); --process also works them off as sync --once does')
    .argument('<stream>', `one of ${kinds.map((k) => k.stream).join(', ')}`)
    .argument('<file>', 'an NDJSON file, or - for stdin')
    .option('--process', 'process the queued records until idle and print a summary')
    .option('--batch-size <n>', "records per import batch (each becomes its records' jobs when a worker takes it)", positive, 1000)
    .option('--json', 'machine-readable output')
    .option('--dry-run', 'print what each record would do (its calls), writing nothing and queuing nothing')
    .action(async (stream: string, file: string, o: { process?: boolean; json?: boolean; batchSize: number; dryRun?: boolean }) => {
      const kind = findDef(kinds, stream);
      if (!kind) throw new UsageError(`unknown stream "${stream}": use one of ${kinds.map((k) => k.stream).join(', ')}`);
      if (file !== '-' && !existsSync(file)) throw new UsageError(`${file}: no such file`);
      if (o.dryRun) {
        if (o.process) throw new UsageError('--dry-run and --process exclude each other: a dry run processes nothing');
        const { runDryRun } = await import('./dry-run-action.js');
        return runDryRun(io, done, { sources: [{ stream, from: 'file', file }], json: o.json, kinds });
      }
      const progress = runProgress(io, !o.json);
      let r: { imported: ImportResult; summary?: SyncSummary };
      try {
        r = o.process
          ? await queueAndProcess(io, kind, file, o.batchSize, progress.onProgress, kinds)
          : { imported: await queueOnly(io, kind, file, o.batchSize, progress.onProgress, kinds) };
      } finally {
        progress.stop();
      }
      if (o.json) writeJson(io, r);
      else {
        if (io.stdout.isTTY) io.stdout.write('\n');
        io.stdout.write(renderImport(r.imported, stream));
        if (r.summary) io.stdout.write(renderSyncSummary(r.summary, 'Processed'));
      }
      done(r.summary && !r.summary.ok ? ExitCode.someFailed : ExitCode.ok);
    });
}
