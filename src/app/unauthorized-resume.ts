import { plural } from '../ops/state-words.js';
import { defaults } from '../../config/defaults.js';
import type { Credentials } from '../client/credentials.js';
import type { ServiceApi } from '../client/service-api.js';
import type { Logger } from '../log/logger.js';
import { messageOf } from '../errors/message-of.js';
import { resumeStreams } from '../ops/resume-streams.js';
import { readHolds } from '../queue/hold/hold-report.js';
import { openStreamQueues } from '../queue/stream-queues.js';
import { redisKeys, type RedisConnection as Redis } from '../redis/connection.js';
import { probeService } from './probe-service.js';
import type { Kind } from '../kinds/kind.js';

export interface UnauthorizedResumeOptions {
  redis: Redis;
  prefix: string;
  kinds: readonly Kind[];
  client: ServiceApi;
  credentials: Credentials;
  baseUrl: string;
  logger: Logger;
  /** How often paused streams are looked at, in ms. Default defaults.credentialCheckMs. */
  everyMs?: number;
}

/**
 * Ends by itself a pause that a 401 made (breaker code UNAUTHORIZED, not a repeated refusal) once the credentials'
 * files hold other values than the service refused and one cheap read (within the budgets) is not refused: the
 * streams are then resumed as `inventory-sync resume` does. Nothing runs when the credentials come from no file
 * (nothing can change them without a restart); pauses for 403 and repeated refusals stay the operator's.
 */
export function startUnauthorizedResume(o: UnauthorizedResumeOptions): { stop(): Promise<void> } {
  if (!o.credentials.rotatable) return { stop: async () => undefined };
  const keys = redisKeys(o.prefix);
  const queues = openStreamQueues(o.redis, o.prefix, o.kinds);
  let running: Promise<void> | undefined;
  const look = async () => {
    const streams = o.kinds.map((k) => k.stream);
    const paused = (await readHolds(o.redis, keys, streams)).streams.filter(
      (b) => b.paused && b.code === 'UNAUTHORIZED' && b.by !== 'repeated',
    );
    if (paused.length === 0) return;
    await o.credentials.reload();
    // The service refused these very credentials (this process saw it): asking again would only be refused too.
    if (o.credentials.refusedNow) return;
    try {
      await probeService(o.client, o.baseUrl);
    } catch (err) {
      o.logger.debug({ err: messageOf(err) }, 'credentials probe of a stream paused for 401: not taken yet');
      return;
    }
    for (const r of await resumeStreams(
      queues,
      paused.map((b) => b.stream),
    )) {
      if (!r.wasPaused) continue;
      o.logger.info(
        { stream: r.stream, since: r.since, waiting: r.waiting },
        `stream ${r.stream} resumed by itself: it was paused for 401 (since ${r.since ?? '?'}), and the service takes the ` +
          `credentials read again from their files; ${plural(r.waiting, 'job')} run again from their progress`,
      );
    }
  };
  const timer = setInterval(() => {
    running ??= look()
      .catch((err: unknown) => o.logger.debug({ err: messageOf(err) }, 'look at streams paused for 401 failed (Redis?)'))
      .finally(() => (running = undefined));
  }, o.everyMs ?? defaults.credentialCheckMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
      await queues.close();
    },
  };
}
