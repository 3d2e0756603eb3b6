import type { Registry } from 'prom-client';
import type { Config } from '../../config/read-config.js';
import { startReceiver, type Receiver } from '../ingest/receiver.js';
import { signingKeys } from '../ingest/signing-keys.js';
import { addSecrets, type Logger } from '../log/logger.js';
import type { QueueSet } from '../queue/queues.js';
import type { CheckedKind } from '../records/record-kind.js';
import { loadTransforms, type TransformKind } from '../feed/load-transforms.js';
import type { Transform } from '../feed/transform.js';
import type { RedisConnection as Redis, RedisKeys } from '../redis/connection.js';

export interface StartIngestOptions {
  redis: Redis;
  queues: Pick<QueueSet, 'get'>;
  keys: Pick<RedisKeys, 'ingestSeen'>;
  /** The kinds of job the composition root hands in (their built-in transforms too). */
  kinds: readonly (CheckedKind & TransformKind)[];
  logger: Logger;
  registry?: Registry;
  /** Over INGEST_HOST and INGEST_PORT (the `receive` command's --host, --port). */
  host?: string;
  port: number;
  /** The streams' transforms when the caller has loaded them already (`worker` checks TRANSFORMS at start); default: loaded here. */
  transforms?: ReadonlyMap<string, Transform>;
}

/**
 * The push receiver of the configuration: its secrets (read again from their files on a rotation), its limits and the
 * streams' transforms (TRANSFORMS; a wrong one stops the start with a ConfigError, one line each).
 */
export async function startIngest(config: Config, o: StartIngestOptions): Promise<Receiver> {
  const transforms = o.transforms ?? (await loadTransforms(config.transforms ?? [], o.kinds));
  const { ingest } = config;
  const signing = signingKeys({
    secret: ingest.secret,
    secretFile: config.secretFiles.INGEST_SECRET,
    hmacSecret: ingest.hmacSecret,
    hmacSecretFile: config.secretFiles.INGEST_HMAC_SECRET,
    onChange: (values) => {
      // Learned before anything could log them.
      addSecrets(o.logger, values);
      o.logger.info('push secrets read again from their file: they changed, and pushes signed with the new ones are taken');
    },
    onProblem: (line) => o.logger.warn(line),
  });
  return startReceiver({
    redis: o.redis,
    queues: o.queues,
    kinds: o.kinds,
    transforms,
    keys: o.keys,
    signing,
    host: o.host ?? ingest.host,
    port: o.port,
    limits: {
      maxBodyBytes: ingest.maxBodyBytes,
      ratePerSecond: ingest.ratePerSecond,
      maxBacklog: ingest.maxBacklog,
      maxRecordBytes: config.limits.maxRecordBytes,
    },
    logger: o.logger,
    registry: o.registry,
  });
}
