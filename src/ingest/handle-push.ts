import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { logRepeated, reasonOf } from '../log/log-throttle.js';
import { messageOf } from '../errors/message-of.js';
import type { CheckedKind } from '../records/record-kind.js';
import { findRedisFailure } from '../redis/errors.js';
import { answer } from './answer.js';
import type { IngestMetrics } from './ingest-metrics.js';
import { readCappedBody } from './read-body.js';
import type { Logger } from '../log/logger.js';
import type { AccountsReceiverOptions, ReceiverAccount, ReceiverLimits } from './receiver-options.js';
import { senderOf, type SenderLimit } from './sender-limit.js';
import { storeDelivery } from './store-delivery.js';
import { verifyDelivery, type DeliveryCheck } from './verify-delivery.js';

/** What every push shares: the options, the limits with their defaults, the per-sender limit, the metrics. */
export interface PushContext {
  o: Pick<AccountsReceiverOptions, 'redis' | 'kinds' | 'logger'>;
  limits: ReceiverLimits;
  senders: SenderLimit;
  metrics: IngestMetrics;
  now: () => number;
}

/** An account as a push to it is handled: its queues, keys, secrets and transforms, its logger, its backlog counts. */
export interface PushAccount extends ReceiverAccount {
  logger: Logger;
  /** The account's stream's jobs not yet run, under the account's prefix (one account's flood refuses only its own pushes). */
  backlog(stream: string): Promise<number>;
}

/** Thrown when Redis did not answer a store in time: answered 503 like a refusal. */
class StoreTimeout extends Error {
  readonly code = 'STORE_TIMEOUT';
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The body as JSON, or why it is not (not UTF-8, not JSON). */
function parseBody(body: Buffer): { ok: true; value: unknown } | { ok: false; reason: string } {
  try {
    return { ok: true, value: JSON.parse(utf8.decode(body)) as unknown };
  } catch (err) {
    return { ok: false, reason: err instanceof SyntaxError ? `not JSON (${err.message})` : 'not UTF-8 text' };
  }
}

/**
 * The signature checked with the secrets now (their files looked at when due, so a secret rotated out stops working); one
 * that matches no key has the files read again (a rotation just made) and is checked once more.
 */
async function checkSignature(ctx: PushContext, account: PushAccount, req: IncomingMessage, body: Buffer): Promise<DeliveryCheck> {
  const { signing } = account;
  await signing.refresh();
  const check = () =>
    verifyDelivery(req.headers, body, { webhook: signing.webhook(), hmac: signing.hmac() }, ctx.now(), ctx.limits.toleranceSeconds);
  const first = check();
  if (first.ok || first.code !== 'NO_MATCH') return first;
  return (await signing.refresh({ force: true })) ? check() : first;
}

/** What `work` answers, or StoreTimeout once storeTimeoutMs pass (it may still finish: a retry then finds its jobs, a no-op). */
async function within<T>(ctx: PushContext, work: Promise<T>): Promise<T> {
  const ms = ctx.limits.storeTimeoutMs;
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new StoreTimeout(`Redis did not answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    work.catch(() => undefined);
  }
}

/** The stream's backlog checked, then the delivery stored; `full` (the backlog) instead when the stream holds its cap. */
async function backlogThenStore(ctx: PushContext, account: PushAccount, kind: CheckedKind, deliveryId: string, body: unknown, raw: Buffer) {
  const { o, limits } = ctx;
  const backlog = await account.backlog(kind.stream);
  if (backlog >= limits.maxBacklog) return { full: backlog };
  const deliveryHash = createHash('sha256').update(deliveryId).digest('hex').slice(0, 32);
  const bodyHash = createHash('sha256').update(raw).digest('hex').slice(0, 32);
  const stored = await storeDelivery({
    kind,
    queue: account.queues.get(kind.stream),
    redis: o.redis,
    seenKey: account.keys.ingestSeen(kind.stream, deliveryHash),
    bodyHash,
    seenSeconds: limits.seenSeconds,
    body,
    deliveryId,
    transform: account.transforms?.get(kind.stream),
    bodyBytes: raw.length,
    maxRecordBytes: account.maxRecordBytes ?? limits.maxRecordBytes,
  });
  return { stored };
}

/** 503 with Retry-After: Redis cannot take the push now (refusing writes, away, slow) or the stream holds too much. */
function unavailable(ctx: PushContext, account: PushAccount, res: ServerResponse, stream: string, why: string, reason: string): number {
  logRepeated(account.logger, 'warn', `ingest-503-${account.name}-${reason}`, { stream }, `push answered 503 (the sender retries): ${why}`);
  answer(
    res,
    503,
    { error: 'cannot store the push now; retry later', reason: why },
    { 'retry-after': String(ctx.limits.retryAfterSeconds) },
  );
  return 503;
}

/** A stored push answered (200 for a delivery seen before, else 202 with its counts) and counted in the metrics. */
function answerStored(
  ctx: PushContext,
  account: PushAccount,
  res: ServerResponse,
  stream: string,
  deliveryId: string,
  stored: Awaited<ReturnType<typeof storeDelivery>>,
): number {
  if (stored.duplicate) {
    answer(res, 200, { accepted: true, duplicate: true, deliveryId });
    return 200;
  }
  if (stored.reusedId) {
    ctx.metrics.reusedId(account.name, stream);
    logRepeated(
      account.logger,
      'warn',
      `ingest-reused-id-${account.name}-${stream}`,
      { stream, deliveryId },
      'a webhook-id came again with another body: stored as a delivery of its own (the sender re-uses ids; a retry keeps the body)',
    );
  }
  ctx.metrics.records(account.name, stream, 'queued', stored.queued);
  ctx.metrics.records(account.name, stream, 'duplicate', stored.duplicates);
  ctx.metrics.records(account.name, stream, 'invalid', stored.invalid);
  const { records, queued, duplicates, invalid } = stored;
  answer(res, 202, { accepted: true, deliveryId, records, queued, duplicates, invalid });
  return 202;
}

/**
 * `POST /ingest/{account}/{stream}` of a known account and stream, step by step; answers the status it sent (0 when
 * the sender went away). The signature is checked with that account's secrets only, the rate is counted per account and
 * sender, and the backlog is the account's.
 */
export async function handlePush(
  ctx: PushContext,
  account: PushAccount,
  req: IncomingMessage,
  res: ServerResponse,
  kind: CheckedKind,
): Promise<number> {
  const { o, limits } = ctx;
  const { logger } = account;
  const stream = kind.stream;
  const sender = senderOf(req);
  const allowed = await ctx.senders.take(`${account.name} ${sender}`);
  if (!allowed.ok) {
    answer(res, 429, { error: 'too many pushes from this sender; retry later' }, { 'retry-after': String(allowed.retryAfterSeconds) });
    return 429;
  }
  const read = await readCappedBody(req, limits.maxBodyBytes);
  if (!read.ok && read.why === 'aborted') return 0;
  if (!read.ok) {
    // The rest of the body is not read: the connection closes after the answer.
    answer(res, 413, { error: `the body is larger than ${limits.maxBodyBytes} bytes (INGEST_MAX_BODY_BYTES)` }, { connection: 'close' });
    return 413;
  }
  const signed = await checkSignature(ctx, account, req, read.body);
  if (!signed.ok) {
    logRepeated(
      logger,
      'warn',
      `ingest-401-${account.name}-${signed.code}`,
      { stream, sender, why: signed.reason },
      'push refused: its signature',
    );
    answer(res, 401, { error: 'signature refused', reason: signed.reason });
    return 401;
  }
  const parsed = parseBody(read.body);
  if (!parsed.ok) {
    answer(res, 400, { error: `the body is ${parsed.reason}`, deliveryId: signed.deliveryId });
    return 400;
  }
  if (o.redis.status !== 'ready')
    return unavailable(ctx, account, res, stream, `Redis is not connected (${o.redis.status})`, 'NOT_CONNECTED');
  try {
    const outcome = await within(ctx, backlogThenStore(ctx, account, kind, signed.deliveryId, parsed.value, read.body));
    if (!outcome.stored)
      return unavailable(
        ctx,
        account,
        res,
        stream,
        `${outcome.full} jobs wait in ${stream}, the most it takes (INGEST_MAX_BACKLOG)`,
        'BACKLOG',
      );
    return answerStored(ctx, account, res, stream, signed.deliveryId, outcome.stored);
  } catch (err) {
    const redis = findRedisFailure(err);
    if (redis || err instanceof StoreTimeout)
      return unavailable(ctx, account, res, stream, redis?.message ?? messageOf(err), reasonOf(err));
    logger.error({ stream, err: messageOf(err) }, 'push not stored: an unexpected error (answered 500; the sender retries)');
    answer(res, 500, { error: 'the push could not be stored' });
    return 500;
  }
}
