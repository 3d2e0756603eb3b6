import { CronExpressionParser } from 'cron-parser';
import { messageOf } from '../src/errors/message-of.js';

/**
 * What is wrong with a cron pattern for BullMQ's job scheduler, or undefined when it is fine: 5 or 6 fields, each
 * read by the parser BullMQ itself uses (cron-parser, the same version), so a pattern that passes here runs there.
 */
export function cronProblem(pattern: string): string | undefined {
  const fields = pattern.split(/\s+/).filter(Boolean).length;
  if (fields !== 5 && fields !== 6) return `has ${fields} field(s), not 5 or 6`;
  try {
    CronExpressionParser.parse(pattern);
    return undefined;
  } catch (err) {
    return messageOf(err);
  }
}
