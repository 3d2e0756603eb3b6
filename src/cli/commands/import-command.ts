import { existsSync } from 'node:fs';
import { Command } from 'commander';
import { importNdjson, noCsvLayout, type ImportFormat, type ImportResult, type ReadAs } from '../../feed/importer.js';
import { loadTransforms, oneOffSetting, transformSettingsOf } from '../../feed/load-transforms.js';
import { storeKind, storeOf } from '../../app/feed-sources.js';
import type { Config } from '../../../config/read-config.js';
import type { SyncSummary } from '../../app/runtime.js';
import type { CliIo } from '../../app/cli-io.js';
import { commandLogger, commandQueues, loadConfig, writeJson } from '../../app/command-context.js';
import type { DryRunSource } from '../../app/dry-run-records.js';
import { ExitCode, UsageError } from '../exit-codes.js';
import type { CommandResult } from '../command-result.js';
import { renderImport, renderSyncSummary } from '../render-summary.js';
import { runProgress } from '../run-progress.js';
import { explainBudgetWaits, waitFactsOf } from '../budget-waits.js';
import { positive } from './options.js';
import { findKind } from '../../records/records.js';
import type { Kind } from '../../kinds/kind.js';

/** What `import` reads: a file (or stdin) as its format and transform say, or a store (`--from`). */
type FileSource = Extract<DryRunSource, { from: 'file' }> & { file: string; format: ImportFormat };
type StoreSource = Extract<DryRunSource, { from: 'store' }>;

/** What the command line says of the file, its transform loaded. */
interface ImportArgs {
  source: FileSource;
  batchSize?: number;
  onProgress: ReturnType<typeof runProgress>['onProgress'];
}

/**
 * The stream's transform, every setting of TRANSFORMS checked as at any start (exit 2 with one line per problem),
 * and whether the file can be read: a CSV file needs the kind's CSV layout or a transform.
 */
async function readAs(config: Config, kinds: readonly Kind[], kind: Kind, a: { format: ImportFormat; transform?: string }) {
  const settings = transformSettingsOf(config.transforms ?? [], kinds, storeOf(config)).filter(
    (t) => a.transform === undefined || t.stream !== kind.stream,
  );
  if (a.transform !== undefined) settings.push(oneOffSetting(kind.stream, a.transform));
  const transform = (await loadTransforms(settings, kinds)).get(kind.stream);
  if (a.format === 'csv' && !transform && !kind.record.csv) throw new UsageError(noCsvLayout(kind.stream));
  const read: ReadAs = { format: a.format, ...(transform ? { transform } : {}) };
  return read;
}

/** Queues only: needs Redis, not the service. */
async function queueOnly(io: CliIo, kinds: readonly Kind[], kind: Kind, a: ImportArgs): Promise<ImportResult> {
  const config = loadConfig(io, kinds);
  const logger = commandLogger(config, io.stderr, [], { verbose: io.verbose });
  const stream = kind.stream;
  const { redis, queues, close } = await commandQueues(io, config, [stream], logger);
  try {
    return await importNdjson({
      kind,
      source: a.source.file,
      stdin: io.stdin,
      queues,
      redis,
      logger,
      batchSize: a.batchSize,
      maxLineBytes: config.limits.maxRecordBytes,
      signal: io.stop,
      onProgress: (progress) => a.onProgress({ phase: 'imported', stream, progress }),
      format: a.source.format,
      transform: a.source.transform,
    });
  } finally {
    await close();
  }
}

/** Queues and works them off, as sync --once does. */
async function queueAndProcess(io: CliIo, kinds: readonly Kind[], kind: Kind, a: ImportArgs) {
  const config = loadConfig(io, kinds, { service: true });
  const [{ openApp }, { importAndMaybeProcess }] = await Promise.all([import('../../app/app-context.js'), import('../../app/runtime.js')]);
  const app = await openApp(io, { kinds, config, logTo: io.stderr });
  const facts = waitFactsOf(app.deps);
  const waits = facts
    ? explainBudgetWaits(io.stderr, app.deps.budget, app.config.service?.budgets, { command: 'import', facts })
    : undefined;
  try {
    return await importAndMaybeProcess(app.deps, {
      kinds: [kind],
      stream: kind.stream,
      source: a.source.file,
      stdin: io.stdin,
      process: true,
      batchSize: a.batchSize,
      onProgress: a.onProgress,
      signal: io.stop,
      format: a.source.format,
      transform: a.source.transform,
    });
  } finally {
    waits?.stop();
    await app.close();
  }
}

/** The file's format: --format, else its extension (.csv), else NDJSON. */
function formatOf(file: string, given: string | undefined): ImportFormat {
  if (given === undefined) return file.toLowerCase().endsWith('.csv') ? 'csv' : 'ndjson';
  if (given !== 'csv' && given !== 'ndjson') throw new UsageError(`--format ${given}: use ndjson or csv`);
  return given;
}

interface ImportFlags {
  from?: string;
  since?: string;
  process?: boolean;
  json?: boolean;
  batchSize: number;
  format?: string;
  transform?: string;
}

/** `--since`: a day YYYY-MM-DD; default 60 days back (what a token reads without read_all_orders). */
function sinceOf(given: string | undefined): string {
  const since = given ?? new Date(Date.now() - 60 * 86_400_000).toISOString().slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(since) || Number.isNaN(Date.parse(since))) throw new UsageError(`--since ${since}: a day YYYY-MM-DD`);
  return since;
}

/** `--from <store>`: the store's source of the stream, checked against the configuration. */
function storeSource(io: CliIo, kinds: readonly Kind[], stream: string, o: ImportFlags): StoreSource {
  if (o.from !== 'shopify') throw new UsageError(`--from ${o.from}: the one store source is shopify`);
  const since = sinceOf(o.since);
  const kind = storeKind(loadConfig(io, kinds), kinds);
  if (!kind) throw new UsageError('--from shopify: SHOPIFY_STORE_URL is not set');
  if (kind.stream !== stream) throw new UsageError(`--from shopify: the store is the source of ${kind.stream}, not ${stream}`);
  return { stream, from: 'store', since };
}

/**
 * `import <stream> --from shopify [--since DATE]`: the store's orders updated since that day, queued (the worker or
 * `sync --once` works them off).
 */
async function importFromStore(io: CliIo, done: CommandResult, kinds: readonly Kind[], source: StoreSource, o: ImportFlags): Promise<void> {
  const config = loadConfig(io, kinds);
  const logger = commandLogger(config, io.stderr);
  const { redis, queues, close } = await commandQueues(io, config, [source.stream], logger);
  try {
    const { backfillStore } = await import('../../app/store-backfill.js');
    const r = await backfillStore({ config, logger, kinds, redis, queues }, source.since, io.stop);
    const older = Date.parse(r.from) < Date.now() - 60 * 86_400_000;
    if (o.json) writeJson(io, r);
    else
      io.stdout.write(
        `${r.stream} from the store, updated since ${r.from}: ${r.queued} queued, ${r.duplicates} ` +
          `already queued, ${r.invalid} invalid (${r.pages} pages)\n` +
          (older ? 'Note: a token reads the last 60 days of orders only, unless the app has the read_all_orders scope.\n' : '') +
          'A running worker (or sync --once) works them off.\n',
      );
    done(r.invalid > 0 ? ExitCode.someFailed : ExitCode.ok);
  } finally {
    await close();
  }
}

/** The file named on the command line as a source: it exists, its format, its transform loaded. */
async function fileSource(io: CliIo, kinds: readonly Kind[], kind: Kind, file: string | undefined, o: ImportFlags): Promise<FileSource> {
  if (file === undefined) throw new UsageError('import: name a file (or - for stdin), or --from shopify');
  if (file !== '-' && !existsSync(file)) throw new UsageError(`${file}: no such file`);
  const format = formatOf(file, o.format);
  const read = await readAs(loadConfig(io, kinds), kinds, kind, { format, transform: o.transform });
  return { stream: kind.stream, from: 'file', file, ...read, format };
}

/** `import <stream> <file|->` [--process] [--format csv] [--transform T]: queue a file's records (and work them off). */
export function importCommand(io: CliIo, done: CommandResult, kinds: readonly Kind[]): Command {
  return new Command('import')
    .description('queue the records of an NDJSON or CSV file (- for stdin); --process also works them off as sync --once does')
    .argument('<stream>', `one of ${kinds.map((k) => k.stream).join(', ')}`)
    .argument('[file]', 'an NDJSON or CSV file (by its .csv extension or --format), or - for stdin')
    .option('--from <store>', "instead of a file, the store that is the stream's source: shopify (SHOPIFY_STORE_URL)")
    .option('--since <YYYY-MM-DD>', 'with --from: the orders updated since that day (the go-live floor applies)')
    .option('--process', 'process the queued records until idle and print a summary')
    .option('--format <format>', 'ndjson or csv (a header row); default: csv for a .csv file, else ndjson')
    .option('--transform <name|path>', "this stream's transform for this run: a built-in's name or an ES module (see docs/transforms.md)")
    .option('--batch-size <n>', "records per import batch (each becomes its records' jobs when a worker takes it)", positive, 1000)
    .option('--json', 'machine-readable output')
    .option('--dry-run', 'print what each record would do (its calls), writing nothing and queuing nothing')
    .action(async (stream: string, file: string | undefined, o: ImportFlags) => {
      const kind = findKind(kinds, stream);
      if (!kind) throw new UsageError(`unknown stream "${stream}": use one of ${kinds.map((k) => k.stream).join(', ')}`);
      const source: FileSource | StoreSource =
        o.from !== undefined ? storeSource(io, kinds, stream, o) : await fileSource(io, kinds, kind, file, o);
      // The one dry-run branch, whatever the source: its records planned, over parts that only read.
      if (io.dryRun) {
        if (o.process) throw new UsageError('--dry-run and --process exclude each other: a dry run processes nothing');
        const { runDryRun } = await import('./dry-run-action.js');
        return runDryRun(io, done, { sources: [source], json: o.json, kinds });
      }
      if (source.from === 'store') return importFromStore(io, done, kinds, source, o);
      const progress = runProgress(io, !o.json);
      let r: { imported: ImportResult; summary?: SyncSummary };
      try {
        const args: ImportArgs = { source, batchSize: o.batchSize, onProgress: progress.onProgress };
        r = o.process ? await queueAndProcess(io, kinds, kind, args) : { imported: await queueOnly(io, kinds, kind, args) };
      } finally {
        progress.stop();
      }
      if (o.json) writeJson(io, r);
      else {
        if (io.stdout.isTTY) io.stdout.write('\n');
        io.stdout.write(renderImport(r.imported, stream, { processed: !!r.summary }));
        if (r.summary) io.stdout.write(renderSyncSummary(r.summary, 'Processed'));
      }
      done(r.summary && !r.summary.ok ? ExitCode.someFailed : ExitCode.ok);
    });
}
