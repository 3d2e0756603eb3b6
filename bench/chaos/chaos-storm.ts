import type { Queue } from 'bullmq';
import type { StreamName } from '../../src/records/stream-name.js';
import type { ChaosEvent } from './chaos-events.js';
import type { ChaosImporter } from './chaos-import.js';
import type { ChaosOptions } from './chaos-options.js';
import type { RevokeLog } from './chaos-revoke.js';
import type { OutageLog, RedisFullLog, RotateLog } from './chaos-unattended.js';
import type { CallDownLog } from './chaos-call-down.js';
import { postWindow, sandboxBudgets, type ChaosWorld } from './chaos-world.js';
import type { WorkerSlots } from './worker-slots.js';

export interface StormLog {
  /** Lines "t+12.3s 41% what happened", in order. */
  timeline: string[];
  redisRestarts: Array<{ progress: number; downMs: number; tookMs: number }>;
  tightMs: number;
  /** Whether every event fired and the orders reached 90% before the time limit. */
  completed: boolean;
  /** Workers that ended on their own and were started again. */
  revived: number;
  /** The revoked-key phase, when it ran. */
  revoke?: RevokeLog;
  /** The unattended phases (chaos-unattended.ts), when they ran. */
  outage?: OutageLog;
  redisFull?: RedisFullLog;
  rotate?: RotateLog;
  /** The partial outages, one call down at a time (chaos-call-down.ts). */
  callDowns: CallDownLog[];
}

/** The phases the run hands the storm, each run when its event comes. */
export interface StormPhases {
  revokeKey?: (progress: number) => Promise<RevokeLog>;
  outage?: (progress: number) => Promise<OutageLog>;
  callDown?: (progress: number, index: number) => Promise<CallDownLog>;
  redisFull?: (progress: number) => Promise<RedisFullLog>;
  rotate?: (progress: number) => Promise<RotateLog>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Fraction of the orders' jobs that are completed or failed. */
async function ordersDone(orders: Queue, total: number): Promise<number> {
  const c = await orders.getJobCounts('completed', 'failed');
  return ((c.completed ?? 0) + (c.failed ?? 0)) / Math.max(1, total);
}

/**
 * Runs the workers through the storm: the feed grows every 2 s, and each event fires once the orders are
 * far enough along; the import runs beside them (a child process) from its event on. Ends when every event has
 * fired, the feed is complete, the import has ended and 90% of the orders are done.
 */
export async function runStorm(
  o: ChaosOptions,
  world: ChaosWorld,
  slots: WorkerSlots,
  queues: Map<StreamName, Queue>,
  ordersTotal: number,
  events: ChaosEvent[],
  rand: () => number,
  say: (l: string) => void,
  importer?: ChaosImporter,
  phases: StormPhases = {},
): Promise<StormLog> {
  const t0 = Date.now();
  const log: StormLog = { timeline: [], redisRestarts: [], tightMs: 0, completed: false, revived: 0, callDowns: [] };
  const note = (p: number, what: string) => {
    const line = `t+${((Date.now() - t0) / 1000).toFixed(1)}s ${(p * 100).toFixed(0).padStart(3)}% ${what}`;
    log.timeline.push(line);
    say(line);
  };
  const pending = [...events];
  let dripping = true;
  let nextDrip = t0 + 2000;
  let nextReport = t0 + 10_000;
  let tightSince: number | undefined;
  const deadline = t0 + o.drainTimeoutSeconds * 1000;
  const orders = queues.get('orders')!;
  let p = 0;
  let importing: Promise<unknown> | undefined;
  let imported = importer === undefined;

  for (;;) {
    if (dripping && Date.now() >= nextDrip) {
      dripping = world.drip();
      nextDrip += 2000;
    }
    const before = slots.starts();
    slots.reviveDead();
    if (slots.starts() > before) {
      log.revived += slots.starts() - before;
      note(0, `a worker ended on its own; started again (${slots.starts() - before})`);
    }
    p = await ordersDone(orders, ordersTotal);
    while (pending.length > 0 && pending[0]!.at <= p) {
      const e = pending.shift()!;
      await sleep(e.delayMs);
      if (e.kind === 'kill') {
        const slot = e.slot % o.workers;
        note(p, `SIGKILL worker-${slot + 1}; restart in ${e.downMs} ms`);
        await slots.killAndRestart(slot, e.downMs, p);
      } else if (e.kind === 'freeze') {
        const slot = e.slot % o.workers;
        note(p, `SIGSTOP worker-${slot + 1} for ${e.ms / 1000} s (past the job lock); SIGCONT then`);
        slots.freeze(slot, e.ms);
      } else if (e.kind === 'import') {
        if (importer && !importing) {
          importing = importer
            .runUntilDone(
              'storm',
              () => p,
              (what) => note(p, what),
            )
            .catch((err: unknown) => note(p, `import could not run: ${(err as Error).message}`))
            .finally(() => {
              // Re-deliveries across routes the other way round: the feed brings records the import queued.
              world.feed.append(importer.plan.stream, importer.plan.fedAfter);
              note(
                p,
                `feed: ${importer.plan.fedAfter.length} ${importer.plan.stream} of the file appended (re-deliveries after the import)`,
              );
              imported = true;
            });
        }
      } else if (e.kind === 'outage') {
        if (phases.outage) {
          note(p, `the service goes down: every request answers 503 for ${o.outageSeconds} s; nobody acts`);
          const r = await phases.outage(p);
          log.outage = r;
          note(
            p,
            `service back: held after ${r.heldAfterMs ?? '-'} ms, ${r.requests} requests while down (${r.firstMinute} in the first minute); ` +
              `outage ended ${r.endedAfterMs ?? '-'} ms and first write ${r.firstWriteAfterMs ?? '-'} ms after the return; paused: ${r.paused.join(', ') || 'none'}`,
          );
        }
      } else if (e.kind === 'call-down') {
        if (phases.callDown) {
          note(p, `one call of the service goes down (503) for ${o.callDownSeconds} s while the rest answers; nobody acts`);
          const r = await phases.callDown(p, e.index);
          log.callDowns.push(r);
          note(
            p,
            `${r.call} back: held after ${r.heldAfterMs ?? '-'} ms, ${r.requests} requests to it while down, released ${r.releasedAfterMs ?? '-'} ms ` +
              `after its return; outage opened: ${r.outageOpened ? 'yes' : 'no'}; paused: ${r.paused.join(', ') || 'none'}`,
          );
        }
      } else if (e.kind === 'redis-full') {
        if (phases.redisFull) {
          note(p, `Redis full: maxmemory under what it uses (every write OOM) for ${o.redisFullSeconds} s`);
          const r = await phases.redisFull(p);
          log.redisFull = r;
          note(
            p,
            `Redis raised: ${r.logLines} warning/error lines meanwhile (${r.mostOfOneWorker} from one worker); work on after ${r.workAfterMs ?? '-'} ms`,
          );
        }
      } else if (e.kind === 'rotate-secret') {
        if (phases.rotate) {
          note(p, 'credentials rotated: the service takes only the new key, and the files are rewritten half a second later');
          const r = await phases.rotate(p);
          log.rotate = r;
          note(
            p,
            `after the rotation: ${r.unauthorized} x 401, first request taken with the new key ${r.okAfterMs ?? '-'} ms after the files' rewrite; ` +
              `paused on the way: ${r.pausedOnTheWay.join(', ') || 'none'}, still paused: ${r.pausedAtEnd.join(', ') || 'none'}`,
          );
        }
      } else if (e.kind === 'revoke-key') {
        if (phases.revokeKey) {
          note(p, 'API key revoked: every request answers 401 until the orders stream pauses');
          const r = await phases.revokeKey(p);
          log.revoke = r;
          note(
            p,
            `orders ${r.pausedAfterMs === null ? 'did NOT pause' : `paused after ${r.pausedAfterMs} ms`} (${r.refused} x 401; paused: ${r.paused.join(', ') || 'none'}); key restored; \`resume\` exit ${r.resumeCode}`,
          );
        }
      } else if (e.kind === 'redis-restart') {
        note(p, `Redis SHUTDOWN; start again in ${e.downMs} ms`);
        const t = Date.now();
        await world.redis.restart(e.downMs);
        log.redisRestarts.push({ progress: p, downMs: e.downMs, tookMs: Date.now() - t });
        note(p, `Redis answers again after ${Date.now() - t} ms`);
      } else {
        // Every account's service tightens its budget at once (each account spends its own).
        for (const sb of [world.sandbox, ...world.others.map((a) => a.sandbox)])
          sb.admin.setBudgets(sandboxBudgets(o, e.on ? o.tightShare : 1));
        if (e.on) tightSince = Date.now();
        else if (tightSince !== undefined) log.tightMs += Date.now() - tightSince;
        if (!e.on) tightSince = undefined;
        note(p, e.on ? `tight budget: the sandbox allows ${postWindow(o, o.tightShare).limit} POST/s` : 'budget back to normal');
      }
    }
    if (pending.length === 0 && !dripping && imported && p >= 0.9) {
      log.completed = true;
      note(p, 'storm over: faults off');
      break;
    }
    if (Date.now() > deadline) {
      note(p, `storm stopped by the time limit with ${pending.length} event(s) not fired`);
      break;
    }
    if (Date.now() >= nextReport) {
      const c = world.sandbox.admin.counters();
      const others = world.others.map((a) => `${a.name} ${a.sandbox.admin.counters().creates.order}`).join(', ');
      note(
        p,
        `progress: ${c.creates.order} orders created${others ? ` (other accounts: ${others})` : ''}, ${c.rateLimited} x 429, faults ${JSON.stringify(c.faults)}`,
      );
      nextReport += 10_000;
    }
    await sleep(200 + Math.floor(rand() * 100));
  }
  if (tightSince !== undefined) log.tightMs += Date.now() - tightSince;
  // Stopped by the time limit: the import still ends (or times out) before the drain.
  await importing;
  for (const sb of [world.sandbox, ...world.others.map((a) => a.sandbox)]) {
    sb.admin.setFaults([]);
    sb.admin.setBudgets(sandboxBudgets(o));
  }
  for (const f of [world.feed, ...world.others.map((a) => a.feed)]) f.setFaults({});
  // Orders no phase released (a run without it) come now: they must sync all the same.
  world.held?.releaseRest();
  return log;
}
