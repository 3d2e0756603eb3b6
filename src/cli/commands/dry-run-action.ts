import type { CliIo } from '../../app/cli-io.js';
import { writeJson } from '../../app/command-context.js';
import type { AppDeps } from '../../app/build-deps.js';
import type { DryRunPlan, DryRunSource } from '../../app/dry-run.js';
import type { QueueSet } from '../../queue/queues.js';
import { beforeGoLive, goLiveFloor } from '../../queue/go-live.js';
import type { StreamName } from '../../records/stream-name.js';
import { ExitCode } from '../exit-codes.js';
import type { CommandResult } from '../command-result.js';
import { renderPlan } from '../render-plan.js';
import type { Kind } from '../../kinds/kind.js';

/**
 * `sync --once --dry-run`, `import <stream> <file> --dry-run` and `import <stream> --from shopify --dry-run`: each
 * record's plan, printed (or `--json`), over parts that only read (openApp in a dry run), so nothing is written,
 * queued or moved. Exit 0 when every record can be synced as planned, 1 when some would fail.
 */
export async function runDryRun(
  io: CliIo,
  done: CommandResult,
  o: {
    /** What to read, in order; or made from the parts (the streams `sync --once` runs are those its sources serve). */
    sources: DryRunSource[] | ((d: AppDeps) => DryRunSource[]);
    /** Read the feed (UPSTREAM_URL or a store), as `sync --once` does. */
    feed?: boolean;
    json?: boolean;
    kinds: readonly Kind[];
  },
): Promise<void> {
  // Loaded here, not at start: commands that do not run jobs start faster without them.
  const [{ openApp }, { dryRun }, { readStore }] = await Promise.all([
    import('../../app/app-context.js'),
    import('../../app/dry-run.js'),
    import('../../app/store-backfill.js'),
  ]);
  const jobKinds = [...o.kinds];
  // A plan is a dry run whoever asks for it: its parts only read.
  const app = await openApp({ ...io, dryRun: true }, { kinds: o.kinds, needs: { service: true, upstream: o.feed }, logTo: io.stderr });
  try {
    const d = app.deps;
    const sources = typeof o.sources === 'function' ? o.sources(d) : o.sources;
    const plan = await dryRun(
      {
        client: d.client,
        catalog: d.catalog,
        redis: d.redis,
        keys: d.keys,
        logger: app.logger,
        jobs: app.config.jobs,
        upstream: d.upstream,
        store: (since) => readStore({ config: app.config, logger: app.logger, kinds: o.kinds }, since, io.stop),
        queues: d.queues,
        maxRecordBytes: app.config.limits.maxRecordBytes,
      },
      {
        kinds: jobKinds,
        sources,
        // A record whose job exists already is a no-op at the queue in the real run (read only: the job's state).
        existingJob: async (stream, jobId) => {
          const state = await d.queues.get(stream).getJobState(jobId);
          return state === 'unknown' ? undefined : state;
        },
        // The go-live floor (the kind's SYNC_*_SINCE), decided as the runner decides it.
        skipReason: (stream, record) => {
          const kind = jobKinds.find((k) => k.stream === stream);
          return kind ? beforeGoLive(kind, record, goLiveFloor(kind, app.config.goLive)) : undefined;
        },
        stdin: io.stdin,
        signal: io.stop,
      },
    );
    await noteUnplanned(plan, sources, d.queues);
    if (o.json) writeJson(io, plan);
    else io.stdout.write(renderPlan(plan));
    done(plan.ok ? ExitCode.ok : ExitCode.someFailed);
  } finally {
    await app.close();
  }
}

/**
 * Work queued before the dry run that its plan does not hold, per stream: all of it, unless the plan read the queue
 * (`sync --once`), which leaves only the jobs and batches a worker had in hand.
 */
async function noteUnplanned(plan: DryRunPlan, sources: DryRunSource[], queues: QueueSet): Promise<void> {
  const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
  for (const stream of new Set<StreamName>(sources.map((x) => x.stream))) {
    const read = sources.some((x) => x.stream === stream && x.from === 'queue');
    const states = read ? (['active'] as const) : (['waiting', 'delayed', 'prioritized', 'active'] as const);
    const jobs = sum(await queues.get(stream).getJobCounts(...states));
    const batches = sum(await queues.intake(stream).getJobCounts(...states.filter((s) => s !== 'prioritized')));
    if (jobs + batches > 0) (plan.alreadyQueued ??= {})[stream] = { jobs, batches };
  }
}
