import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { createRedis } from '../../src/redis/connection.js';
import { intakeQueueName } from '../../src/queue/intake-queue.js';
import { STREAMS } from '../../jobs/kinds.js';
import type { StreamName } from '../../src/records/stream-name.js';
import { machine } from '../lib/machine.js';
import { faultPlan } from './chaos-env.js';
import { planEvents } from './chaos-events.js';
import { seededRandom } from '../../src/sandbox/seeded-random.js';
import { ChaosImporter } from './chaos-import.js';
import type { ChaosOptions } from './chaos-options.js';
import { totalViolations, type ChaosReport } from './chaos-report.js';
import { checkRevoke, revokeKeyPhase } from './chaos-revoke.js';
import { checkOutage, checkRedisFull, checkRotate, outagePhase, redisFullPhase, rotateSecretPhase } from './chaos-unattended.js';
import { callDownPhase, checkCallDowns } from './chaos-call-down.js';
import { runStorm, type StormLog } from './chaos-storm.js';
import { startWorld, type ChaosWorld } from './chaos-world.js';
import { checkCountResults, countResults } from './check-counts.js';
import { checkImports } from './check-import.js';
import { checkLocks, checkQueues, drainProgress, expectedJobs } from './check-queues.js';
import { checkReconcile } from './check-reconcile.js';
import { checkState } from './check-state.js';
import { createdOnce } from './check-lives.js';
import { check, type CheckResult } from './check-types.js';
import { probeDashboard } from './dashboard-probe.js';
import { injectedTable } from './injected.js';
import { checkLogHygiene } from './log-hygiene.js';
import { badJobId, buildScenario, type Scenario } from './scenario.js';
import { scanAnswers, scanFiles, scanRedis, secretForms } from './secret-scan.js';
import { WorkerSlots } from './worker-slots.js';
import { FIRST_ACCOUNT, HeldBatches, checkHeldBatches } from './chaos-accounts.js';
import { TurnWatch, checkCutTurns, checkTurns, cutTurns, stallLimitMs, type CutTurn, type WatchedAccount } from './chaos-turns.js';
import { accountRows, checkOtherAccount } from './check-accounts.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until every expected job has finished and none is left to do, no batch either (seen twice); a violation otherwise. */
async function drain(
  accounts: Array<{ queues: Map<StreamName, Queue>; intakes: Map<StreamName, Queue>; expected: ReturnType<typeof expectedJobs> }>,
  timeoutMs: number,
  say: (l: string) => void,
): Promise<CheckResult> {
  const until = Date.now() + timeoutMs;
  let idle = 0;
  let last = { finished: 0, total: 0, unfinished: 0 };
  let nextSay = Date.now() + 10_000;
  while (idle < 2) {
    last = { finished: 0, total: 0, unfinished: 0 };
    for (const a of accounts) {
      const d = await drainProgress(a.queues, a.intakes, a.expected);
      last = { finished: last.finished + d.finished, total: last.total + d.total, unfinished: last.unfinished + d.unfinished };
    }
    idle = last.finished >= last.total && last.unfinished === 0 ? idle + 1 : 0;
    if (Date.now() > until) break;
    if (Date.now() >= nextSay) {
      say(`drain: ${last.finished}/${last.total} jobs finished, ${last.unfinished} still to do`);
      nextSay += 10_000;
    }
    if (idle < 2) await sleep(500);
  }
  const v =
    idle >= 2
      ? []
      : [`not drained after ${Math.round(timeoutMs / 1000)} s: ${last.finished}/${last.total} finished, ${last.unfinished} unfinished`];
  return check('every job finished (drained) within the time limit', last.total, v);
}

/** The full run: world up, workers through the storm, drain, stop, then every check. */
export async function runChaos(o: ChaosOptions, root: string, command: string, say: (l: string) => void): Promise<ChaosReport> {
  const t0 = Date.now();
  const logDir = o.logDir ?? mkdtempSync(join(tmpdir(), 'isync-chaos-'));
  const scenario: Scenario = buildScenario({
    orders: o.orders,
    countsPerLocation: o.countsPerLocation,
    countShare: o.countShare,
    boms: o.boms,
    redeliveryRate: o.redeliveryRate,
    badPerStream: o.badRounds,
    importShare: o.importShare,
    lifeShare: o.lifeShare,
    seed: o.seed,
  });
  const expected = expectedJobs(scenario);
  say(`chaos: logs in ${logDir}`);
  const world: ChaosWorld = await startWorld(o, scenario, root, logDir);
  const conn = createRedis(world.redis.url);
  conn.on('error', () => undefined);
  const queues = new Map(STREAMS.map((s) => [s, new Queue(s, { connection: conn, prefix: world.prefix })]));
  const intakes = new Map(STREAMS.map((s) => [s, new Queue(intakeQueueName(s), { connection: conn, prefix: world.prefix })]));
  // Our own reads ride out the Redis restart; without a listener BullMQ prints every connection error.
  for (const q of [...queues.values(), ...intakes.values()]) q.on('error', () => undefined);
  // The accounts past the first (--accounts): their queues, what they must become, and their held orders.
  const queuesOf = (prefix: string) => ({
    queues: new Map(STREAMS.map((s) => [s, new Queue(s, { connection: conn, prefix })])),
    intakes: new Map(STREAMS.map((s) => [s, new Queue(intakeQueueName(s), { connection: conn, prefix })])),
  });
  const others = world.others.map((a) => ({ account: a, ...queuesOf(a.prefix), expected: expectedJobs(a.scenario) }));
  for (const a of others) for (const q of [...a.queues.values(), ...a.intakes.values()]) q.on('error', () => undefined);
  const watched: WatchedAccount[] = [
    { name: FIRST_ACCOUNT, prefix: world.prefix, queues, intakes },
    ...others.map((a) => ({ name: a.account.name, prefix: a.account.prefix, queues: a.queues, intakes: a.intakes })),
  ];
  const turns = others.length ? new TurnWatch(conn, world.prefix, watched) : undefined;
  if (others.length) world.held = new HeldBatches(world.others, conn);
  const slots = new WorkerSlots({ root, count: o.workers, env: world.env, logDir, useDist: o.dist, t0 });
  const importer = scenario.imported
    ? new ChaosImporter({ root, env: world.env, accountArgs: world.accountArgs(), logDir, useDist: o.dist, plan: scenario.imported })
    : undefined;
  const rand = seededRandom(o.seed * 7919 + 17);
  const checks: CheckResult[] = [];
  let storm: StormLog | undefined;
  let syncMs = 0;
  const cut: CutTurn[] = [];
  try {
    for (const sb of [world.sandbox, ...world.others.map((a) => a.sandbox)]) sb.admin.setFaults(faultPlan(o.faultScale));
    for (const f of [world.feed, ...world.others.map((a) => a.feed)]) f.setFaults({ status503Rate: Math.min(1, 0.05 * o.faultScale) });
    const tWorkers = Date.now();
    slots.startAll();
    turns?.start();
    say(
      `chaos: ${o.workers} workers started against ${world.sandbox.url} (dashboard ${world.dashboardUrl})` +
        (others.length ? `; ${o.accounts} accounts by turns (${[FIRST_ACCOUNT, ...world.others.map((a) => a.name)].join(', ')})` : ''),
    );
    const ordersTotal = expected.get('orders')!.good.size + expected.get('orders')!.bad.size;
    storm = await runStorm(o, world, slots, queues, ordersTotal, planEvents(o, rand), rand, say, importer, {
      revokeKey: (p) => revokeKeyPhase(o, world, conn, root, p),
      outage: (p) => outagePhase(o, world, conn, p),
      callDown: (p, i) => callDownPhase(o, world, conn, p, i),
      redisFull: (p) => redisFullPhase(o, world, conn, queues.get('orders')!, slots.logFiles(), p),
      rotate: (p) => rotateSecretPhase(world, conn, p),
    });
    checks.push(
      check(
        'storm ran to its end (every kill and restart fired)',
        1,
        storm.completed ? [] : ['the storm hit the time limit; see the timeline'],
      ),
    );
    if (o.revokeKey) checks.push(checkRevoke(storm.revoke));
    if (o.outageSeconds > 0) checks.push(checkOutage(storm.outage));
    if (o.callDowns > 0) checks.push(checkCallDowns(o, storm.callDowns));
    if (o.rotateSecret) checks.push(checkRotate(storm.rotate));
    checks.push(await drain([{ queues, intakes, expected }, ...others], o.drainTimeoutSeconds * 1000, say));
    syncMs = Date.now() - tWorkers;
    await turns?.stop();
    // The turns the storm's kills cut (several accounts), read once drained: a turn cut by the last kill is taken up
    // again a lease later. The first account's, cut before the raise of a full Redis, waited for its lease to end,
    // whatever Redis did (checkCutTurns judges that wait).
    if (others.length) cut.push(...cutTurns(slots.logFiles(), slots.kills, t0));
    const firstCut = cut
      .filter((c) => c.account === FIRST_ACCOUNT && c.nextAfterMs !== null)
      .map((c) => ({ killedAt: c.killedAt, resumedAt: c.killedAt + c.nextAfterMs! }))
      .find((c) => storm!.redisFull && c.killedAt <= storm!.redisFull.raisedAt && c.resumedAt > storm!.redisFull.raisedAt);
    if (o.redisFullSeconds > 0) checks.push(checkRedisFull(storm.redisFull, firstCut));
    if (importer) {
      // A re-import must be harmless: every record's job exists now, so nothing may be queued.
      const again = await importer.run('again', 1);
      say(
        `chaos: the same file imported again: exit ${again.code}${again.counts ? `, ${again.counts.queued} queued, ${again.counts.duplicates} duplicates` : ''}`,
      );
      checks.push(...checkImports(importer.plan, importer.runs));
    }
    const final = world.sandbox.admin.state();
    const counters = world.sandbox.admin.counters();
    const othersFinal = world.others.map((a) => ({ state: a.sandbox.admin.state(), counters: a.sandbox.admin.counters() }));

    say('chaos: stopping the workers (SIGTERM)');
    const exits = await slots.stopAll(30_000);
    checks.push(
      check(
        'workers exit 0 on SIGTERM',
        exits.length,
        exits.filter((e) => e.code !== 0).map((e) => `worker-${e.slot + 1} exited with ${e.code} after ${e.ms} ms`),
      ),
    );
    checks.push(
      check(
        'no worker ended on its own (Redis restart, faults)',
        slots.starts(),
        slots.unexpectedExits().map((e) => `worker-${e.slot + 1} (pid ${e.pid}) ended with ${e.code}`),
      ),
    );

    say('chaos: checking the service, the queues and the locks');
    checks.push(...checkState(scenario, world.initial, final, o.chunkSize));
    checks.push(createdOnce(scenario, final, counters));
    const full = storm.redisFull;
    checks.push(...(await checkQueues(conn, world.prefix, scenario, full ? [[full.from, full.raisedAt]] : [])));
    checks.push(checkCountResults(scenario, await countResults(conn, world.prefix)));
    checks.push(await checkLocks(conn, world.prefix, 65_000));
    // The operator's own proof, faults off: the service matches every record the program recorded as synced.
    world.sandbox.admin.setFaults([]);
    checks.push(await checkReconcile(root, world.env, logDir, o.dist, world.accountArgs()));
    if (others.length) {
      say(`chaos: checking the other accounts (${world.others.map((a) => a.name).join(', ')}) and the turns`);
      const redisRefused: Array<[number, number]> = full ? [[full.from, full.raisedAt]] : [];
      for (const [i, a] of world.others.entries())
        checks.push(
          ...(await checkOtherAccount(
            a,
            othersFinal[i]!,
            { conn, chunkSize: o.chunkSize, redisRefused },
            { root, env: world.env, logDir, dist: o.dist },
          )),
        );
      checks.push(checkHeldBatches(o, world.held!));
      checks.push(
        checkTurns(
          turns!,
          watched.map((w) => w.name),
          stallLimitMs(o),
        ),
      );
      checks.push(checkCutTurns(cut, turns!, slots.kills.length));
    }

    say('chaos: probing the dashboard and scanning for secrets');
    const forms = secretForms(
      {
        'API key': world.secrets.apiKey,
        'API secret': world.secrets.apiSecret,
        'upstream token': world.secrets.upstreamToken,
        'dashboard password': world.secrets.dashboardPassword,
        ...(world.rotated ? { 'rotated API key': world.rotated.apiKey, 'rotated API secret': world.rotated.apiSecret } : {}),
        ...Object.fromEntries(
          world.others.flatMap((a) => [
            [`${a.name} API key`, a.apiKey],
            [`${a.name} API secret`, a.apiSecret],
            [`${a.name} upstream token`, a.upstreamToken],
          ]),
        ),
      },
      [
        [world.secrets.apiKey, world.secrets.apiSecret],
        ...(world.rotated ? [[world.rotated.apiKey, world.rotated.apiSecret] as [string, string]] : []),
        ...world.others.map((a) => [a.apiKey, a.apiSecret] as [string, string]),
      ],
    );
    // Where the workers get them: their environment, and the credential files when the run rotates them.
    const given =
      JSON.stringify(world.env) +
      (world.secretFiles ? readFileSync(world.secretFiles.key, 'utf8') + readFileSync(world.secretFiles.secret, 'utf8') : '') +
      (world.accountsFile ? readFileSync(world.accountsFile, 'utf8') : '');
    const control = forms.filter((f) => given.includes(f.value)).length;
    checks.push(
      check(
        "secret scan finds the secrets where they are (control: the workers' environment)",
        1,
        control >= 3 ? [] : [`only ${control} secret forms found in the environment`],
      ),
    );
    const sample = [
      ...scenario.bad.slice(0, 8).map((b) => ({ queue: b.stream, id: badJobId(b) })),
      ...scenario.bad
        .filter((b) => b.via === 'import')
        .slice(-2)
        .map((b) => ({ queue: b.stream, id: badJobId(b) })),
      ...STREAMS.flatMap((s) => [...expected.get(s)!.good].slice(0, 3).map((id) => ({ queue: s, id }))),
    ];
    const base = (name: string) => (others.length ? `/a/${name}` : '');
    const otherSample = others.flatMap((a) => [
      ...a.account.scenario.bad.slice(0, 2).map((b) => ({ queue: b.stream, id: badJobId(b), base: base(a.account.name) })),
      ...STREAMS.flatMap((s) => [...a.expected.get(s)!.good].slice(0, 1).map((id) => ({ queue: s, id, base: base(a.account.name) }))),
    ]);
    const probe = await probeDashboard(
      world.dashboardUrl,
      world.secrets.dashboardUser,
      world.secrets.dashboardPassword,
      [...sample.map((j) => ({ ...j, base: base(FIRST_ACCOUNT) })), ...otherSample],
      others.length ? [FIRST_ACCOUNT, ...world.others.map((a) => a.name)].map(base) : [],
    );
    checks.push(probe.refusals, probe.reads, scanAnswers(probe.answers, forms));
    checks.push(await scanRedis(conn, forms));
    await world.dashboard.stop(10_000);
    const logs = [...slots.logFiles(), join(logDir, 'dashboard.log'), ...(importer ? [importer.logFile()] : [])].filter((f) =>
      existsSync(f),
    );
    const lines = logs.reduce(
      (n, f) =>
        n +
        readFileSync(f, 'utf8')
          .split('\n')
          .filter((l) => l.startsWith('{')).length,
      0,
    );
    checks.push(
      check(
        'logs captured (JSON lines at debug level)',
        logs.length,
        lines > 100 ? [] : [`only ${lines} JSON log lines in ${logs.length} files`],
      ),
    );
    checks.push(
      scanFiles(
        `the logs of every worker, the dashboard${importer ? ' and the import (and what it printed)' : ''}`,
        [...logs, ...(importer?.outputFiles() ?? [])],
        forms,
      ),
    );
    checks.push(checkLogHygiene(logs));
    await Promise.all(
      [...queues.values(), ...intakes.values(), ...others.flatMap((a) => [...a.queues.values(), ...a.intakes.values()])].map((q) =>
        q.close(),
      ),
    );
    await world.held?.close();
    conn.disconnect();
    await world.close();
    checks.push(scanFiles("Redis's files on disk (AOF, log)", [world.redis.dir], forms));
    return {
      command,
      options: o,
      machine: machine(),
      durationMs: Date.now() - t0,
      syncMs,
      logDir,
      injected: [...injectedTable(scenario, world, counters, storm, slots, importer?.runs ?? []), ...accountRows(world, othersFinal, cut)],
      timeline: storm.timeline,
      checks,
      violations: totalViolations(checks),
    };
  } finally {
    await turns?.stop();
    importer?.kill();
    await slots.killAll();
    conn.disconnect();
    await world.close();
  }
}
