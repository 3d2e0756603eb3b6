import { plural } from '../ops/state-words.js';
import type { Mapping } from '../../config/mapping-file.js';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { RedisConnection as Redis } from '../redis/connection.js';
import type { Budgets } from '../../config/read-config.js';
import type { StreamQueues } from '../queue/stream-queues.js';
import { findRecord } from '../ops/find.js';
import { readFlow, sampleFlow } from '../ops/flow-metrics.js';
import { readLastReport } from '../ops/reconcile.js';
import { planRepairs } from '../ops/repair-plan.js';
import { lastRepairKey, type RepairReport, type Repairer } from '../ops/repair-report.js';
import { resumeStreams } from '../ops/resume-streams.js';
import type { Logger } from '../log/logger.js';
import type { FlowView } from './browser/flow-view.js';
import { findHtml, reconcileHtml } from './pages.js';
import { shellOf } from './job-routes.js';
import type { AccountPicker } from './layout.js';
import type { Kind } from '../kinds/kind.js';

export interface OpsRoutesOptions {
  /** The kinds of job: what `find` shows of each. */
  kinds: readonly Kind[];
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
  /** Runs repairs (reconcile --repair); without it the reconcile page shows the planned repairs, no button. */
  repair?: Repairer;
  /** Where these pages are: '' (the default, one account) or `/a/NAME`; links and redirects stay under it. */
  base?: string;
  /** ACCOUNTS_FILE's accounts for the pages' picker, this one current; none with one account. */
  accounts?: () => AccountPicker;
  /** An account of ACCOUNTS_FILE: the keys of the minutes its deployment ran, for its charts (src/ops/flow-minutes.ts). */
  ranMinutes?: readonly string[];
}

/** Samples at most this often per dashboard process while charts are watched. */
const SAMPLE_EVERY_MS = 5000;

type Page = (req: Request, res: Response) => Promise<void>;
const wrap = (fn: Page) => (req: Request, res: Response, next: NextFunction) => {
  fn(req, res).catch(next);
};
const keyOf = (req: Request) => (typeof req.query.key === 'string' ? req.query.key.trim().slice(0, 200) : '');

/** The operator pages beside the overview: `find`, the last reconcile report, and the live charts' data. */
export function opsRoutes(o: OpsRoutesOptions): Router {
  const r = express.Router();
  findRoutes(r, o);
  reconcileRoutes(r, o);
  resumeRoute(r, o);
  flowRoute(r, o);
  return r;
}

/** `find` as a page and as JSON. */
function findRoutes(r: Router, o: OpsRoutesOptions): void {
  r.get(
    '/find',
    wrap(async (req, res) => {
      const key = keyOf(req);
      if (!key) return void res.redirect(303, `${o.base ?? ''}/`);
      const result = await findRecord(o.redis, o.queues, key, undefined, { mapping: o.mapping, kinds: o.kinds });
      res
        .status(result.found ? 200 : 404)
        .type('html')
        .send(findHtml(result, shellOf(o), o.serviceBaseUrl));
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
}

/** The last reconcile report as a page (with its planned repairs) and as JSON, and the page's repairs. */
function reconcileRoutes(r: Router, o: OpsRoutesOptions): void {
  // Every kind's opt-in counts as given on the page: a drift's button is the operator's choice for that record.
  const allOptIns = new Set(o.kinds.flatMap((k) => (k.ops?.repair?.optIn ? [k.ops.repair.optIn.option] : [])));
  r.get(
    '/reconcile',
    wrap(async (req, res) => {
      const report = await readLastReport(o.redis, o.prefix);
      const lastRaw = await o.redis.get(lastRepairKey(o.prefix));
      const plan = report ? await planRepairs(report, { kinds: o.kinds, queues: o.queues, optIns: allOptIns, run: 'page' }) : undefined;
      const planned = (report?.drifts ?? []).map((d) =>
        plan?.items.find((i) => i.stream === d.stream && i.key === d.key && i.kind === d.kind && i.field === d.field),
      );
      const flash = typeof req.query.flash === 'string' ? req.query.flash.slice(0, 300) : undefined;
      const last = lastRaw ? (JSON.parse(lastRaw) as RepairReport) : undefined;
      res.type('html').send(reconcileHtml(report, shellOf(o), o.serviceBaseUrl, { canRepair: !!o.repair, planned, last, flash }));
    }),
  );
  // The reconcile page's "Repair" buttons (behind the login and the same-origin check): one record's drifts, or all.
  r.post('/repair', wrap(repairPage(o, allOptIns)));
  r.get(
    '/api/reconcile',
    wrap(async (_req, res) => {
      const report = await readLastReport(o.redis, o.prefix);
      if (!report) return void res.status(404).json({ error: 'reconcile has not run yet: inventory-sync reconcile' });
      res.json(report);
    }),
  );
}

/** Repairs one record's drifts, or all (stock only when asked), keeps the report and says how it went. */
function repairPage(o: OpsRoutesOptions, allOptIns: Set<string>): Page {
  return async (req, res) => {
    if (!o.repair) return void res.status(409).type('text').send('this dashboard cannot repair: start it with the service configured\n');
    const body = (req.body ?? {}) as Record<string, unknown>;
    const all = body.all === '1';
    const stream = body.stream;
    const key = typeof body.key === 'string' ? body.key.trim().slice(0, 200) : '';
    if (!all && (typeof stream !== 'string' || !o.queues.names.includes(stream) || !key))
      return void res.status(400).type('text').send('stream (one of the streams) and key are required, or all=1\n');
    const only = all ? undefined : { stream: stream as string, key };
    const optIns = all ? new Set(body.includeStock === '1' ? allOptIns : []) : allOptIns;
    const report = await o.repair({ only, optIns });
    await o.redis.set(lastRepairKey(o.prefix), JSON.stringify(report));
    const n = (a: string) => report.items.filter((i) => i.action === a).length;
    o.logger?.info({ run: report.run, only, repaired: n('repair'), ok: report.ok }, 'dashboard: repair');
    const flash =
      `Repair ${report.run}${only ? ` of ${only.key}` : ''}: ${n('repair')} repaired, ${n('by-hand')} left to a person, ` +
      `${n('skipped')} skipped; ${report.ok ? 'no drift left' : 'drift left (see below)'}.`;
    res.redirect(303, `${o.base ?? ''}/reconcile?flash=${encodeURIComponent(flash)}`);
  };
}

/** The overview's "Resume" button of a stream its breaker paused (behind the login and the same-origin check). */
function resumeRoute(r: Router, o: OpsRoutesOptions): void {
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
        ? `Resumed ${stream}: ${plural(done!.waiting, 'job')} run again from their progress.`
        : `${stream} was not paused.`;
      res.redirect(303, `${o.base ?? ''}/?flash=${encodeURIComponent(flash)}`);
    }),
  );
}

/** The live charts' data, sampled here too at most every SAMPLE_EVERY_MS. */
function flowRoute(r: Router, o: OpsRoutesOptions): void {
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
        ranMinutes: o.ranMinutes,
      });
      // What the browser code reads (browser/flow-view.ts) must fit what is sent: the compiler checks it here.
      const view: FlowView = flow;
      res.set('cache-control', 'no-store').json(view);
    }),
  );
}
