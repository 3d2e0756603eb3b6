import type { CliIo } from '../../app/cli-io.js';
import { writeJson } from '../../app/command-context.js';
import type { DryRunSource } from '../../app/dry-run.js';
import { beforeGoLive, goLiveFloor } from '../../queue/go-live.js';
import { ExitCode } from '../exit-codes.js';
import type { CommandResult } from '../command-result.js';
import { renderPlan } from '../render-plan.js';
import type { Kind } from '../../kinds/kind.js';

/**
 * `sync --once --dry-run` and `import <stream> <file> --dry-run`: each record's plan, printed (or `--json`), with
 * nothing written, queued or moved. Exit 0 when every record can be synced as planned, 1 when some would fail.
 */
export async function runDryRun(
  io: CliIo,
  done: CommandResult,
  o: { sources: DryRunSource[]; json?: boolean; kinds: readonly Kind[] },
): Promise<void> {
  // Loaded here, not at start: commands that do not run jobs start faster without them.
  const [{ openApp }, { dryRun }] = await Promise.all([import('../../app/app-context.js'), import('../../app/dry-run.js')]);
  const jobKinds = [...o.kinds];
  const fromFeed = o.sources.some((s) => s.from === 'feed');
  const app = await openApp(io, { kinds: o.kinds, needs: { service: true, upstream: fromFeed }, logTo: io.stderr });
  try {
    const d = app.deps;
    const plan = await dryRun(
      {
        client: d.client,
        catalog: d.catalog,
        redis: d.redis,
        keys: d.keys,
        logger: app.logger,
        jobs: app.config.jobs,
        upstream: d.upstream,
        maxRecordBytes: app.config.limits.maxRecordBytes,
      },
      {
        kinds: jobKinds,
        sources: o.sources,
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
    for (const stream of new Set(o.sources.map((x) => x.stream))) {
      const jobs = Object.values(await d.queues.get(stream).getJobCounts('waiting', 'delayed', 'prioritized', 'active'));
      const batches = Object.values(await d.queues.intake(stream).getJobCounts('waiting', 'delayed', 'active'));
      const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
      if (sum(jobs) + sum(batches) > 0) (plan.alreadyQueued ??= {})[stream] = { jobs: sum(jobs), batches: sum(batches) };
    }
    if (o.json) writeJson(io, plan);
    else io.stdout.write(renderPlan(plan));
    done(plan.ok ? ExitCode.ok : ExitCode.someFailed);
  } finally {
    await app.close();
  }
}
