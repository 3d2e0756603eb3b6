import type { z } from 'zod';
import { zodProblemText } from '../errors/zod-problems.js';

/** An API answer other than 200: status and the `msg` of the body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly msg: string,
  ) {
    super(msg);
    this.name = 'ApiError';
  }
}

export const badRequest = (msg: string) => new ApiError(400, msg);
export const notFound = (msg: string) => new ApiError(404, msg);

/** docs/service.md "Errors", in the words the service uses (contract 2). */
export const duplicate = (what: string) => new ApiError(400, `Database integrity violation: duplicate object: ${what}`);
export const missingReference = (what: string) =>
  new ApiError(400, `Database integrity violation: reference to an object that does not exist: ${what}`);
/** A write to a completed order: 400 under `spec`, 403 under `observed` (`status`, the profile's closedOrderStatus). */
export const orderCompleted = (orderId: string, status: number) =>
  new ApiError(status, `Order ${orderId} is completed and cannot be modified until it is made editable again`);

/** "a.b[0].c: problem; ..." for zod issues, with "is required" for missing fields. */
export function issuesText(issues: readonly z.core.$ZodIssue[]): string {
  return zodProblemText(issues, { brackets: true, missing: 'is required', max: 5 });
}

/** Parses a request body with a zod schema, or throws a 400 naming the fields. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, what: string): z.output<S> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest(`${what}: the body must be a JSON object`);
  const r = schema.safeParse(body);
  if (!r.success) throw badRequest(`${what}: ${issuesText(r.error.issues)}`);
  return r.data;
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?$/;

export interface DateTimeParts {
  date: string;
  hour: number;
  minute: number;
  second: number;
  ms: number;
}

/** Parses YYYY-MM-DDTHH:MM:SS[.mmm] (naive local), or undefined when malformed or not a real date. */
export function parseDateTime(s: string): DateTimeParts | undefined {
  const m = DATE_TIME.exec(s);
  if (!m) return undefined;
  const [y, mo, d, h, mi, se] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const check = new Date(Date.UTC(y, mo - 1, d));
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) return undefined;
  if (h > 23 || mi > 59 || se > 59) return undefined;
  return { date: s.slice(0, 10), hour: h, minute: mi, second: se, ms: Number((m[7] ?? '0').padEnd(3, '0')) };
}
