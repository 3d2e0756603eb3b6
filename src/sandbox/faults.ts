import { RE2JS } from 're2js';
import { z } from 'zod';
import type { FaultRule } from './sandbox-options.js';

/** Longest path pattern a fault rule may have. */
export const maxFaultPathLength = 200;

export const faultRuleSchema = z.object({
  kind: z.enum([
    'status-503',
    'reset',
    'apply-then-drop',
    'apply-then-hang',
    'hang',
    'drop-then-apply',
    'status-401',
    'status-403',
    'status-400',
  ]),
  msg: z.string().max(500).optional(),
  rate: z.number().min(0).max(1).optional(),
  method: z.enum(['GET', 'POST']).optional(),
  path: z.string().optional(),
  times: z.number().int().nonnegative().optional(),
  hangMs: z.number().nonnegative().optional(),
});
export const faultRulesSchema = z.array(faultRuleSchema);

/** Fault kinds that refuse the account (a revoked key, a forbidden action) rather than fail the transport. */
const REFUSALS = new Set<FaultRule['kind']>(['status-401', 'status-403', 'status-400']);

interface ActiveRule {
  rule: FaultRule;
  re: RE2JS | undefined;
  fired: number;
}

/** The fault rules in force; the first rule that matches a request and wins its draw fires. */
export class Faults {
  private rules: ActiveRule[] = [];

  constructor(private readonly random: () => number) {}

  /**
   * Replaces the rules; throws on an invalid pattern. Paths are matched by RE2 (re2js), in time linear in the
   * path, so no pattern can stall the server the way a backtracking regex like `(a+)+$` would.
   */
  set(rules: readonly FaultRule[]): void {
    this.rules = rules.map((rule, i) => {
      let re: RE2JS | undefined;
      if (rule.path !== undefined) {
        if (rule.path.length > maxFaultPathLength) throw new Error(`faults[${i}].path: is longer than ${maxFaultPathLength} characters`);
        try {
          re = RE2JS.compile(rule.path);
        } catch (err) {
          throw new Error(`faults[${i}].path: ${(err as Error).message}`);
        }
      }
      return { rule: { ...rule }, re, fired: 0 };
    });
  }

  /** The rules with how often each fired. */
  list(): Array<FaultRule & { fired: number }> {
    return this.rules.map((r) => ({ ...r.rule, fired: r.fired }));
  }

  get active(): boolean {
    return this.rules.length > 0;
  }

  /**
   * The rule that fires on this request, if any. `refusals`: only the refusals (status-401, status-403, status-400),
   * which the handler asks about right after the credentials, before the budget; otherwise every other kind.
   */
  pick(method: string, path: string, refusals = false): FaultRule | undefined {
    for (const r of this.rules) {
      const { rule } = r;
      if (REFUSALS.has(rule.kind) !== refusals) continue;
      if (rule.method !== undefined && rule.method !== method) continue;
      if (r.re && !r.re.matcher(path).find()) continue;
      if (rule.times !== undefined && r.fired >= rule.times) continue;
      if (this.random() >= (rule.rate ?? 1)) continue;
      r.fired++;
      return rule;
    }
    return undefined;
  }
}
