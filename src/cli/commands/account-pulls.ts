import type { WatchedAccount } from '../../app/accounts-watch.js';
import { upstreamClient } from '../../app/build-deps.js';
import { secretValues } from '../../app/command-context.js';
import { feedSources } from '../../app/feed-sources.js';
import { startSchedules } from '../../app/start-schedules.js';
import type { Control } from '../../feed/control.js';
import type { DueLoop } from '../../feed/due-loop.js';
import type { Kind } from '../../kinds/kind.js';
import { accountLogger, addSecrets, type Logger } from '../../log/logger.js';
import { workMarkOf } from '../../queue/dispatch/work-mark.js';
import { createQueues } from '../../queue/queues.js';
import { redisKeys, type RedisConnection as Redis } from '../../redis/connection.js';
import type { CliIo } from '../../app/cli-io.js';
import type { ProcessTracing } from '../../app/app-context.js';

/**
 * What an account of ACCOUNTS_FILE that pulls a feed keeps open in each process, between its turns and during them
 * (issue 56: an idle account is data): its logger, its feed source, its queues (each opened once a page has records to
 * queue) and its scheduled pulls in the process's due set. Not its service client, budget, catalog, call holds or
 * metrics registry: those open with its turn (account-host.ts), which counts its series and samples and alerts itself.
 * Between turns its series are read from Redis when asked for, its alerts are the process's look at closed accounts,
 * and its charts the sweep's (account-closed.ts): no registry or sampler of its own in any process.
 */
export interface PullParts {
  logger: Logger;
  control: Control;
  /** Stops its pulls (a running one gets `graceMs`); `forget`: its schedules leave the due set. */
  close(forget: boolean, graceMs: number): Promise<void>;
}

/** What the accounts of a process share, as the pulls use it. */
export interface PullsProcess {
  io: CliIo;
  kinds: readonly Kind[];
  logger: Logger;
  redis: Redis;
  tracing?: ProcessTracing;
  due: DueLoop;
}

/** Opens an account's pulls over the process's Redis, its schedules registered in the due set. */
export async function openPulls(p: PullsProcess, entry: WatchedAccount): Promise<PullParts> {
  const { config } = entry;
  addSecrets(p.logger, secretValues(config));
  const logger = accountLogger(p.logger, entry.name, config.logLevel);
  const keys = redisKeys(config.redis.prefix);
  const queues = createQueues({
    connection: p.redis,
    prefix: config.redis.prefix,
    jobs: config.jobs,
    streams: p.kinds.map((k) => k.stream),
    telemetry: p.tracing?.telemetry,
    mark: workMarkOf(p.redis, config),
  });
  const upstream = feedSources({ config, logger, kinds: p.kinds, redis: p.redis, keys, http: upstreamClient(config, logger) });
  const deps = { config, logger, redis: p.redis, keys, upstream, queues, kinds: p.kinds };
  let control: Control;
  try {
    control = await startSchedules(deps, p.kinds, p.due);
  } catch (err) {
    await queues.close();
    throw err;
  }
  return {
    logger,
    control,
    async close(forget, graceMs) {
      try {
        if (forget) await control.removeSchedules();
        await control.close(graceMs);
      } finally {
        await queues.close();
        logger.flush?.();
      }
    },
  };
}
