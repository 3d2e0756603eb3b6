import { redact, type Logger } from '../log/logger.js';
import { messageOf } from '../errors/message-of.js';
import { logRepeated, reasonOf } from '../log/log-throttle.js';
import type { WriteState } from '../queue/hold/write-probe.js';
import { alertHead, postAlert } from './alerts.js';

export interface RedisRefusedAlertOptions {
  webhookUrl: string;
  prefix: string;
  /** Alert once Redis has refused writes this long. */
  afterSeconds: number;
  /** Values no alert may carry. */
  secrets: string[];
  logger: Logger;
  /** The account of ACCOUNTS_FILE this process serves (config.accountName), named in the alert; none without the file. */
  account?: string;
}

/**
 * One alert per episode of a Redis that refuses writes past `afterSeconds`. Gated in this process, not in Redis as the
 * other alerts are (`{prefix}:alert:sent:*`): Redis is the thing that takes no writes. Each worker process sends its own.
 * Answers the function to call after every write probe. It reads that probe's state, not readHolds: this hold is kept
 * in the process (hold-report.ts takes it from the same probe), and a read of Redis is what fails while it holds.
 */
export function redisRefusedAlert(o: RedisRefusedAlertOptions): (s: WriteState) => void {
  let toldFor: number | undefined;
  let sending = false;
  return (s) => {
    if (!s.refusing || s.since === toldFor || sending) return;
    const seconds = Math.round((Date.now() - s.since!) / 1000);
    if (seconds < o.afterSeconds) return;
    const text = redact(
      `${alertHead(o.prefix, o.account)}: Redis has ${s.answered ? 'refused writes' : 'not answered'} for ${seconds} s: ` +
        `${s.why}. ${s.hint ?? ''} ` +
        'Jobs and pulls wait and nothing is lost; they go on by themselves once Redis takes writes again. See /readyz.',
      o.secrets,
    ).replace(/\s+/g, ' ');
    sending = true;
    postAlert(o.webhookUrl, text, o.account)
      .then(() => {
        toldFor = s.since;
        o.logger.info({ reason: 'redis-refuses-writes' }, 'alert sent');
      })
      .catch((err: unknown) =>
        logRepeated(
          o.logger,
          'warn',
          `alert-post:${reasonOf(err)}`,
          { alert: 'redis-refuses-writes', err: messageOf(err) },
          'alert not sent: check ALERT_WEBHOOK_URL; trying again in 2 s',
        ),
      )
      .finally(() => (sending = false));
  };
}
