/**
 * Telling a failure of Redis (a reply error such as MOVED or CROSSSLOT, a closed connection, a cluster that is
 * down) from one of the service or the feed, wherever it surfaces: a job, the budget, a command.
 */

/** A failure of Redis found in an error or its causes. */
export interface RedisFailure {
  /** The Redis client's or server's error. */
  error: Error;
  /** The error's text, with the node's own error when the cluster client wraps one. */
  message: string;
  /** What to do about it. */
  hint: string;
  /** Whether Redis answered with an error (MOVED, NOAUTH...), rather than not answering. */
  replied: boolean;
}

/** Error classes of ioredis and its parser (by name: they are not all exported). AbortError is left out: it also means "interrupted". */
const REDIS_ERROR_NAMES = new Set(['ReplyError', 'RedisError', 'ParserError', 'MaxRetriesPerRequestError', 'ClusterAllFailedError']);

/** ioredis rejects with plain Errors in these cases; their text is all there is to tell them by. */
const REDIS_CLIENT_MESSAGES = [
  'Connection is closed.',
  'None of startup nodes is available',
  'Cluster is disconnected.',
  "Cluster isn't ready",
  'Too many Cluster redirections',
  'All keys in the pipeline should belong to the same slots allocation group',
  'All the keys in a pipeline command should belong to the same slot',
];

const CLUSTER_NODES = 'REDIS_CLUSTER_NODES=host:port,host:port,...';

/** Hints by the reply's error code (its first word, as Redis defines it). */
const REPLY_HINTS: Record<string, string> = {
  MOVED: `Redis is a cluster and REDIS_URL points at one of its nodes: set ${CLUSTER_NODES} (REDIS_URL is then not used).`,
  ASK: `Redis is a cluster and REDIS_URL points at one of its nodes: set ${CLUSTER_NODES} (REDIS_URL is then not used).`,
  CROSSSLOT:
    'The keys of one command are in different slots of a Redis Cluster: ' +
    `set ${CLUSTER_NODES} so that QUEUE_PREFIX is put in a {hash tag}.`,
  CLUSTERDOWN:
    'The Redis Cluster cannot serve a slot now (a node is down or has no slots); check it with `redis-cli --cluster check host:port`.',
  TRYAGAIN:
    'The Redis Cluster is moving a slot; run again in a moment, and check it with `redis-cli --cluster check host:port` if it persists.',
  NOAUTH:
    'Redis wants a password: put it in REDIS_URL (redis://user:password@host:port), ' +
    'REDIS_CLUSTER_NODES (redis://:password@host:port,...) or REDIS_PASSWORD.',
  WRONGPASS: 'Redis refused the user or password (REDIS_URL, REDIS_CLUSTER_NODES or REDIS_PASSWORD); fix them.',
  NOPERM: 'The Redis user of REDIS_URL lacks a permission the program needs (keys under QUEUE_PREFIX, EVAL); grant it.',
  READONLY:
    'This Redis is a read-only replica: point REDIS_URL (or REDIS_CLUSTER_NODES) at the primary, ' +
    'or let Sentinel find it (REDIS_SENTINELS, REDIS_SENTINEL_NAME).',
  MASTERDOWN:
    'The Redis replica lost its primary; point REDIS_URL at the primary, ' +
    'or wait for the failover (with REDIS_SENTINELS the program follows it).',
  OOM: 'Redis is out of memory (maxmemory): free memory or raise maxmemory (keep maxmemory-policy noeviction).',
  LOADING: 'Redis is still loading its data after a restart; run again in a moment.',
  BUSY: 'Redis is busy running a script; run again in a moment.',
};

const NOT_A_CLUSTER_HINT = 'REDIS_CLUSTER_NODES points at a Redis that is not a cluster: unset it and set REDIS_URL instead.';
const CONNECTION_HINT = 'Redis stopped answering: check that it is up (REDIS_URL, or REDIS_CLUSTER_NODES for a cluster) and run again.';
const OTHER_HINT = 'Redis answered with an error: check the Redis server and its log, and REDIS_URL or REDIS_CLUSTER_NODES.';

function isRedisError(e: unknown): e is Error {
  if (!(e instanceof Error)) return false;
  return REDIS_ERROR_NAMES.has(e.name) || REDIS_CLIENT_MESSAGES.some((m) => e.message.startsWith(m));
}

/** The Redis failure in `err` or its causes (cause, errors, a cluster's last node error), if there is one. */
export function findRedisFailure(err: unknown): RedisFailure | undefined {
  let e: unknown = err;
  for (let depth = 0; e && typeof e === 'object' && depth < 6; depth++) {
    if (isRedisError(e)) return describe(e);
    const errors = (e as { errors?: unknown[] }).errors;
    const inner = Array.isArray(errors) && errors.length ? errors.find(isRedisError) : undefined;
    e = inner ?? (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function describe(error: Error): RedisFailure {
  // The cluster client's "Failed to refresh slots cache." says little; the node's own error says why.
  const nodeError = (error as { lastNodeError?: unknown }).lastNodeError;
  const cause = nodeError instanceof Error ? nodeError : undefined;
  const message = cause ? `${error.message} (${(cause as NodeJS.ErrnoException).code ?? cause.message})` : error.message;
  const reply = cause?.name === 'ReplyError' ? cause : error;
  return { error, message, hint: hintFor(reply), replied: reply.name === 'ReplyError' };
}

function hintFor(error: Error): string {
  if (error.name !== 'ReplyError') return CONNECTION_HINT;
  if (/cluster support disabled/i.test(error.message)) return NOT_A_CLUSTER_HINT;
  const code = /^[A-Z]+/.exec(error.message)?.[0] ?? '';
  return REPLY_HINTS[code] ?? OTHER_HINT;
}
