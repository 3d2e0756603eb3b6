import { plural } from '../ops/state-words.js';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Budgets } from '../../config/read-config.js';
import type { Logger } from '../log/logger.js';
import { showJob } from '../ops/job-inspect.js';
import { retryAllFailed, retryJobIds } from '../ops/job-retry.js';
import { readLastReport } from '../ops/reconcile.js';
import { readStatus } from '../ops/status-report.js';
import { readFlow, sampleFlow } from '../ops/flow-metrics.js';
import type { StreamQueues } from '../queue/stream-queues.js';
import type { RedisConnection as Redis } from '../redis/connection.js';
import type { AccountPicker, Shell } from './layout.js';
import { badRequestHtml, jobHtml, noJobHtml, overviewHtml } from './pages.js';

export interface JobRoutesOptions {
  redis: Redis;
  queues: StreamQueues;
  prefix: string;
  signedIn: boolean;
  /** The request budgets, to show how much of each is in use. */
  budgets?: Budgets;
  logger?: Logger;
  /** Where these pages are: '' (the default, one account) or `/a/NAME`; links and redirects stay under it. */
  base?: string;
  /** ACCOUNTS_FILE's accounts for the pages' picker, this one current; none with one account. */
  accounts?: () => AccountPicker;
  /** An account of ACCOUNTS_FILE: where the deployment's workers say they run (worker-presence.ts). */
  deploymentWorkers?: string;
  /** An account of ACCOUNTS_FILE: the keys of the minutes its deployment ran, for its charts (src/ops/flow-minutes.ts). */
  ranMinutes?: readonly string[];
}

/** The pages' header for routes of one account. */
export function shellOf(o: {
  signedIn: boolean;
  prefix: string;
  base?: string;
  accounts?: () => AccountPicker;
}): Shell & { prefix: string } {
  return { signedIn: o.signedIn, prefix: o.prefix, base: o.base, accounts: o.accounts?.() };
}

type Page = (req: Request, res: Response) => Promise<void>;
const wrap = (fn: Page) => (req: Request, res: Response, next: NextFunction) => {
  fn(req, res).catch(next);
};
const flashOf = (req: Request) => (typeof req.query.flash === 'string' ? req.query.flash.slice(0, 300) : undefined);

/** The overview and its status as JSON, a job's page, and the retries of one job or of a failure group. */
export function jobRoutes(o: JobRoutesOptions): Router {
  const r = express.Router();
  r.get(
    '/',
    wrap(async (req, res) => {
      // Sampled first, as /api/flow does: the table and the charts read the same samples (flow-charts.ts keeps them so).
      await sampleFlow(o.redis, o.prefix, o.queues.names);
      const [status, reconcile] = await Promise.all([
        readStatus(o.redis, o.queues, { budgets: o.budgets, deploymentWorkers: o.deploymentWorkers }),
        readLastReport(o.redis, o.prefix),
      ]);
      // The budget table's last hour, from the samples its charts draw (one figure, two views); the failures of the status.
      const failedNow = Object.fromEntries(status.streams.map((st) => [st.stream, st.counts.failed]));
      const flow = await readFlow(o.redis, o.prefix, o.queues, {
        spanMinutes: 60,
        budgets: o.budgets,
        failedNow,
        ranMinutes: o.ranMinutes,
      });
      res.type('html').send(overviewHtml(status, shellOf(o), { flash: flashOf(req), reconcile, budget: flow.budget }));
    }),
  );
  r.get(
    '/api/status',
    wrap(async (_req, res) => {
      res.json(await readStatus(o.redis, o.queues, { budgets: o.budgets, deploymentWorkers: o.deploymentWorkers }));
    }),
  );
  r.get(
    '/jobs/:id',
    wrap(async (req, res) => {
      const story = await showJob(o.queues, String(req.params.id));
      if (!story) {
        res
          .status(404)
          .type('html')
          .send(noJobHtml(String(req.params.id), shellOf(o)));
        return;
      }
      res.type('html').send(jobHtml(story, shellOf(o), flashOf(req)));
    }),
  );
  r.post('/jobs/:id/retry', wrap(retryOne(o)));
  r.post('/retry-group', wrap(retryGroup(o)));
  return r;
}

/** The job page's "Retry": back to the job's page with what happened. */
function retryOne(o: JobRoutesOptions): Page {
  return async (req, res) => {
    const id = String(req.params.id);
    const r = await retryJobIds(o.queues, [id]);
    const flash = r.retried.length ? 'Retried: the job is waiting for a worker.' : `Not retried: ${r.refused[0]?.reason ?? 'unknown'}`;
    o.logger?.info({ jobId: id, retried: r.retried.length }, 'dashboard: retry of one job');
    res.redirect(303, `${o.base ?? ''}/jobs/${encodeURIComponent(id)}?flash=${encodeURIComponent(flash)}`);
  };
}

/** The overview's "Retry all" of a failure group (a stream, a code and a reason). */
function retryGroup(o: JobRoutesOptions): Page {
  return async (req, res) => {
    const b = (req.body ?? {}) as Record<string, unknown>;
    if (typeof b.stream !== 'string' || !o.queues.names.includes(b.stream) || typeof b.code !== 'string' || typeof b.reason !== 'string') {
      res
        .status(400)
        .type('html')
        .send(badRequestHtml('stream, code and reason are required.', { signedIn: o.signedIn, base: o.base, accounts: o.accounts?.() }));
      return;
    }
    // A group is of record jobs or of import batches; without `batch` (an older form), both.
    const batch = b.batch === 'true' ? true : b.batch === 'false' ? false : undefined;
    const r = await retryAllFailed(o.queues, { streams: [b.stream], group: { code: b.code, reason: b.reason, batch } });
    o.logger?.info({ stream: b.stream, code: b.code, retried: r.retried.length }, 'dashboard: retry of a failure group');
    res.redirect(
      303,
      `${o.base ?? ''}/?flash=${encodeURIComponent(`Retried ${plural(r.retried.length, `${b.stream} job`)} failed with [${b.code}].`)}`,
    );
  };
}
