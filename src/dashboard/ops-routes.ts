import type { Mapping } from '../../config/mapping-file.js';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { RedisConnection as Redis } from '../redis.js';
import type { Budgets } from '../../config/read-config.js';
import type { StreamQueues } from '../queue/stream-queues.js';
import { findRecord } from '../ops/find.js';
import { readFlow, sampleFlow } from '../ops/flow-metrics.js';
import { readLastReport } from '../ops/reconcile.js';
import { resumeStreams } from '../ops/resume-streams.js';
import type { Logger } from '../logger.js';
import type { FlowView } from './browser/flow-view.js';
import { findHtml, reconcileHtml } from './pages.js';
import type { OpsKind } from '../ops/ops-kind.js';

export interface OpsRoutesOptions {
  /** The kinds of job: what `find` shows of each. */
  kinds: readonly OpsKind[];
  redis: Redis;
  queues: StreamQueues;
  prefix: string;
  signedIn: boolean;
  budgets?: Budgets;
  /** The service's base URL, to link entities to it; without it they are shown as text. */
  serviceBaseUrl?: string;
  /** The lag over which `worker` alerts, drawn on the lag charts. */
  lagLimitSeconds?: number;
  /** MAPPING_FILE: `find` shows the service's names beside the record's. */
  mapping?: Mapping;
  logger?: Logger;
}

/** Samples at most this often per dashboard process while charts are watched. */
const SAMPLE_EVERY_MS = 5000;

/** The operator pages beside the overview: `find`, the last reconcile report, and the live charts' data. */
export function opsRoutes(o: OpsRoutesOptions): Router {
  const r = express.Router();
  const shell = { signedIn: o.signedIn, prefix: o.prefix };
  const wrap = (fn: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response, next: NextFunction) => {
    fn(req, res).catch(next);
  };
  const keyOf = (req: Request) => (typeof req.query.key === 'string' ? req.query.key.trim().slice(0, 200) : '');

  r.get(
    '/find',
    wrap(async (req, res) => {
      const key = keyOf(req);
      if (!key) return void res.redirect(303, '/');
      const result = await findRecord(o.redis, o.queues, key, undefined, { mapping: o.mapping, kinds: o.kinds });
      res
        .status(result.found ? 200 : 404)
        .type('html')
        .send(findHtml(result, shell, o.serviceBaseUrl));
    }),
  );
  r.get(
    '/api/find',
    wrap(async (req, res) => {
      const key = keyOf(req);
      if (!key) return void res.status(400).json({ error: 'key is required: /api/find?key=WEB-1' });
      const result = await findRecord(o.redis, o.queues, key, undefined, { mapping: o.mapping, kinds: o.kinds });
      res.status(result.found ? 200 : 404).json(result);
    }),
  );
  r.get(
    '/reconcile',
    wrap(async (_req, res) => {
      res.type('html').send(reconcileHtml(await readLastReport(o.redis, o.prefix), shell, o.serviceBaseUrl));
    }),
  );
  r.get(
    '/api/reconcile',
    wrap(async (_req, res) => {
      const report = await readLastReport(o.redis, o.prefix);
      if (!report) return void res.status(404).json({ error: 'reconcile has not run yet: inventory-sync reconcile' });
      res.json(report);
    }),
  );

  // The overview's "Resume" button of a stream its breaker paused (behind the login and the same-origin check).
  r.post(
    '/resume',
    wrap(async (req, res) => {
      const stream = (req.body as Record<string, unknown> | undefined)?.stream;
      if (typeof stream !== 'string' || !o.queues.names.includes(stream)) {
        return void res.status(400).type('text').send('stream is required: one of the streams\n');
      }
      const [done] = await resumeStreams(o.queues, [stream]);
      o.logger?.info({ stream, wasPaused: done!.wasPaused, waiting: done!.waiting }, 'dashboard: resume of a stream');
      const flash = done!.wasPaused
        ? `Resumed ${stream}: ${done!.waiting} job(s) run again from their progress.`
        : `${stream} was not paused.`;
      res.redirect(303, `/?flash=${encodeURIComponent(flash)}`);
    }),
  );

  let sampledAt = 0;
  r.get(
    '/api/flow',
    wrap(async (req, res) => {
      // The worker samples too; this keeps the charts moving when only `sync --once` runs.
      if (Date.now() - sampledAt >= SAMPLE_EVERY_MS) {
        sampledAt = Date.now();
        await sampleFlow(o.redis, o.prefix, o.queues.names);
      }
      const minutes = Number(req.query.minutes);
      const flow = await readFlow(o.redis, o.prefix, o.queues, {
        spanMinutes: Number.isInteger(minutes) && minutes > 0 ? minutes : undefined,
        budgets: o.budgets,
        lagLimitSeconds: o.lagLimitSeconds,
      });
      // What the browser code reads (browser/flow-view.ts) must fit what is sent: the compiler checks it here.
      const view: FlowView = flow;
      res.set('cache-control', 'no-store').json(view);
    }),
  );
  return r;
}
