import { z } from 'zod';
import { cronProblem } from './cron-pattern.js';

/**
 * The rules of the settings, each message naming its variable: the program's own (config/schema.ts) and those the
 * kinds of job declare (config/kind-setting.ts) read alike.
 */

export const positiveInt = (name: string) =>
  z.coerce
    .number({ error: `${name} must be a whole number` })
    .int(`${name} must be a whole number`)
    .positive(`${name} must be greater than 0`);
export const nonNegativeInt = (name: string) =>
  z.coerce
    .number({ error: `${name} must be a whole number` })
    .int(`${name} must be a whole number`)
    .min(0, `${name} must be 0 or more`);
export const optionalText = z.string().trim().min(1).optional();
export const httpUrl = (name: string) =>
  z
    .string()
    .trim()
    .refine((v) => /^https?:\/\/[^\s/]+/.test(v), `${name} must be an http(s) URL such as https://app.example.com`)
    .transform((v) => v.replace(/\/+$/, ''));
export const calendarDate = (name: string) =>
  z
    .string()
    .trim()
    .refine(
      (v) =>
        /^\d{4}-\d{2}-\d{2}$/.test(v) &&
        !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) &&
        new Date(`${v}T00:00:00Z`).toISOString().startsWith(v),
      `${name} must be a calendar date YYYY-MM-DD, such as 2026-01-01`,
    );
/** A cron pattern of 5 or 6 fields (seconds first), as BullMQ's job schedulers take it. */
export const cronPattern = (name: string, example: string) =>
  z
    .string()
    .trim()
    .superRefine((v, ctx) => {
      const problem = cronProblem(v);
      if (problem) ctx.addIssue({ code: 'custom', message: `${name} must be a cron pattern such as "${example}": ${problem}` });
    });
/** An IANA time zone the runtime knows. */
export const timeZone = (name: string) =>
  z
    .string()
    .trim()
    .refine((tz) => {
      try {
        new Intl.DateTimeFormat('en-US', { timeZone: tz });
        return true;
      } catch {
        return false;
      }
    }, `${name} must be an IANA time zone such as Europe/Berlin`);
