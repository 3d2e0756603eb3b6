/**
 * The one way a zod error becomes words, at every edge (configuration, records, job data, service answers, the
 * feed's pages, the sandbox's requests): each issue a field and a reason, said `field: reason`. Values are never
 * echoed (one may be a secret).
 */

/** One problem of a value: the field (a dotted path) and what is wrong with it. */
export interface ZodProblem {
  field: string;
  reason: string;
}

/** A zod issue, as far as these words need it. */
export interface IssueLike {
  readonly path: ReadonlyArray<PropertyKey>;
  readonly message: string;
}

/** How an edge words its problems; each default is zod's own wording. */
export interface ProblemWording {
  /** The field of an issue about the whole value (no path), such as `(record)`. Default: none. */
  whole?: string;
  /** Put before every field, such as `data.` or `row 3: `. */
  under?: string;
  /** Array indexes as `lines[0]` rather than `lines.0`. */
  brackets?: boolean;
  /** What zod's "... received undefined" becomes, such as `is required`. */
  missing?: string;
  /** What zod's "... received null" becomes. */
  isNull?: string;
}

/** Every issue as a field and a reason. */
export function zodProblems(issues: readonly IssueLike[], wording: ProblemWording = {}): ZodProblem[] {
  return issues.map((i) => ({
    field: `${wording.under ?? ''}${pathOf(i.path, wording) || (wording.whole ?? '')}`,
    reason: reasonOf(i.message, wording),
  }));
}

/**
 * `field: reason; ...` for the first `max` issues (all by default), then `and N more` when `countMore`. A reason
 * that names its field already (or an issue without one) is said alone.
 */
export function zodProblemText(issues: readonly IssueLike[], wording: ProblemWording & { max?: number; countMore?: boolean } = {}): string {
  const max = wording.max ?? issues.length;
  const shown = zodProblems(issues.slice(0, max), wording).map(problemLine);
  if (wording.countMore && issues.length > max) shown.push(`and ${issues.length - max} more`);
  return shown.join('; ');
}

/** One problem as `field: reason`, or the reason alone when it has no field or names it already. */
export function problemLine(p: ZodProblem): string {
  return !p.field || p.reason.startsWith(p.field) ? p.reason : `${p.field}: ${p.reason}`;
}

function pathOf(path: ReadonlyArray<PropertyKey>, wording: ProblemWording): string {
  if (!wording.brackets) return path.map(String).join('.');
  return path.reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc ? `${acc}.${String(p)}` : String(p)), '');
}

function reasonOf(message: string, wording: ProblemWording): string {
  if (wording.missing !== undefined && /received undefined$/.test(message)) return wording.missing;
  if (wording.isNull !== undefined && /received null$/.test(message)) return wording.isNull;
  return message;
}
