/** One line of the chaos run's "checked" table: a rule, how many things it looked at, what broke it. */
export interface CheckResult {
  name: string;
  checked: number;
  violations: string[];
}

/** Builds a CheckResult, keeping the first `max` violation lines and a count of the rest. */
export function check(name: string, checked: number, violations: string[], max = 20): CheckResult {
  const shown = violations.slice(0, max);
  if (violations.length > max) shown.push(`... and ${violations.length - max} more`);
  return { name, checked, violations: violations.length > max ? shown : violations };
}

/** Number of violations in a result, counting the "... and N more" line as N. */
export function violationCount(r: CheckResult): number {
  let n = 0;
  for (const v of r.violations) {
    const m = /^\.\.\. and (\d+) more$/.exec(v);
    n += m ? Number(m[1]) : 1;
  }
  return n;
}
