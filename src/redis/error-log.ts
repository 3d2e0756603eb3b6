import type { Logger } from '../log/logger.js';
import { logRepeated, reasonOf } from '../log/log-throttle.js';
import { messageOf } from '../errors/message-of.js';
import { findRedisFailure } from './errors.js';

/**
 * A connection-level error of a BullMQ worker or queue (Redis down, full, read-only): one line per reason every
 * 30 s across every worker of the process, with what to do, however many thousand a second BullMQ emits.
 */
export function logRedisError(logger: Logger, where: string, err: unknown, fields: Record<string, unknown> = {}): void {
  const message = messageOf(err).replace(/\.$/, '');
  const hint = findRedisFailure(err)?.hint;
  logRepeated(
    logger,
    'error',
    `redis:${reasonOf(err)}`,
    { ...fields, err: message, ...(hint ? { hint } : {}) },
    `${where} error (Redis?): ${message}${hint ? `. ${hint}` : ''}; BullMQ reconnects and goes on`,
  );
}
