import type { SandboxData } from './sandbox-data-schema.js';

/** Injected failure, matched against each API request (not the admin endpoints). */
export interface FaultRule {
  /**
   * - `status-503`: answer 503 before doing anything;
   * - `reset`: destroy the connection (TCP reset) before doing anything;
   * - `apply-then-drop`: do the request fully (a write is applied), then drop the connection without answering;
   * - `apply-then-hang`: do the request fully (a write is applied), then never answer, or answer 504 after `hangMs`
   *   (a caller killed meanwhile never learns the write happened);
   * - `hang`: do nothing and never answer, or answer 504 after `hangMs`;
   * - `drop-then-apply`: drop the connection without answering, then do the request fully `hangMs` later (a gateway
   *   that gave up while the service still works on it: the write lands after the caller gave up);
   * - `status-401`: answer 401 as for a revoked key (checked right after the credentials, before the budget);
   * - `status-403`: answer 403 "not allowed" as for an account that may not do this (e.g. ship through the API);
   *   with `path`, only there. Neither does anything;
   * - `status-400`: answer 400 `{msg}` with the rule's `msg` (the same business refusal for every request it
   *   matches, e.g. "The API cannot pack or ship"), doing nothing.
   */
  kind:
    | 'status-503'
    | 'reset'
    | 'apply-then-drop'
    | 'apply-then-hang'
    | 'hang'
    | 'drop-then-apply'
    | 'status-401'
    | 'status-403'
    | 'status-400';
  /** For `status-400`: the answer's `msg`. Default: "The request was refused". */
  msg?: string;
  /** Probability that a matching request is hit, 0..1. Default: 1. */
  rate?: number;
  /** Only requests of this method. Default: any. */
  method?: 'GET' | 'POST';
  /**
   * RE2 pattern (linear time; at most 200 characters) tested against the request path (no query), e.g.
   * "/api/shipment/". Default: any path.
   */
  path?: string;
  /** Fire at most this many times. Default: unlimited. */
  times?: number;
  /** For `hang` and `apply-then-hang`: answer 504 after this many ms instead of never; for `drop-then-apply`: the delay. */
  hangMs?: number;
}

/** One budget: `limit` requests a window of `windowMs` (counted as the budgets' `window` says). */
export interface BudgetWindow {
  /** Requests allowed per window. */
  limit: number;
  /** Window length in ms. */
  windowMs: number;
}

/**
 * How the budgets count (src/sandbox/budget-windows.ts): `fixed` windows aligned on the epoch, `offset` fixed windows
 * starting `offsetMs` after the epoch's, a `sliding` window (a request counts for `windowMs` after it), or a
 * `token-bucket` (`limit` tokens a window, refilled continuously, at most `burst` held).
 */
export type WindowShape = 'fixed' | 'offset' | 'sliding' | 'token-bucket';

/** Every window shape, for options parsers and the tests and benches that run on each. */
export const WINDOW_SHAPES: readonly WindowShape[] = ['fixed', 'offset', 'sliding', 'token-bucket'];

/** Request budgets; `null` or absent turns a class off. A collection GET counts in both `get` and `collection`. */
export interface BudgetSettings {
  post?: BudgetWindow | null;
  get?: BudgetWindow | null;
  collection?: BudgetWindow | null;
  /** One budget that every API request spends (GET, POST, collection), beside its class's: accounts with one limit. */
  total?: BudgetWindow | null;
  /** Unit of X-RateLimit-Reset (the real service is reported with both). Default: 's'. */
  resetUnit?: 's' | 'ms';
  /**
   * Which answers carry X-RateLimit-*: `every-answer` (Limit, Remaining and Reset on every answer past the budget
   * check, as many services do) or `on-429` (Limit and Reset on a 429 only, all that public evidence shows of the
   * real service). Default: 'every-answer'.
   */
  rateHeaders?: 'every-answer' | 'on-429';
  /** How every budget counts. Default: 'fixed'. */
  window?: WindowShape;
  /** For `offset`: where windows start after the epoch's, ms. Default: a third of each window. */
  offsetMs?: number;
  /** For `token-bucket`: the most tokens held (what may go at once after a quiet spell). Default: a tenth of the limit. */
  burst?: number;
}

/** Delay added before every API answer: `ms` plus a uniform random 0..`jitterMs`. */
export interface LatencySettings {
  ms: number;
  jitterMs?: number;
}

/**
 * How the sandbox answers (docs/sandbox.md "Profiles"): `spec` as strictly as docs/service.md reads;
 * `observed` as docs/service.md says the real service does (null actions out of state, null empty lists,
 * server-assigned numeric ids, txStamp in seconds, actionUrlEdit, 403 on writes to a completed order).
 */
export type SandboxProfile = 'observed' | 'spec';

/** Every profile, for options parsers and tests that run under each. */
export const SANDBOX_PROFILES: readonly SandboxProfile[] = ['observed', 'spec'];

/** Where the sandbox's account comes from: the demo account, an empty one, a JSON file path, or data in memory. */
export type DataSource = 'demo' | 'empty' | string | SandboxData;

export interface SandboxOptions {
  /** How it answers. Default: sandboxDefaults.profile. */
  profile?: SandboxProfile;
  /**
   * Under `observed`, how an action that is not valid in the entity's state is answered: a `null` field or no
   * field at all (the real service is seen doing both). Default: 'null'. Ignored under `spec` (always a URL).
   */
  invalidActions?: 'null' | 'absent';
  /** Interface to listen on. Default: 127.0.0.1. */
  host?: string;
  /** TCP port; 0 picks a free one. Default: 0. */
  port?: number;
  /** Account path component. Default: the data's account ('demo' for demo and empty data); URLs in the data are rewritten to it. */
  account?: string;
  /** Default: 'demo'. A file is JSON in the shape of `admin.state()`. */
  data?: DataSource;
  /** Basic credentials the API accepts. Default: demo / demo. */
  key?: string;
  secret?: string;
  /** Default: none. */
  latency?: LatencySettings | null;
  /** Default: none (no budget). */
  budgets?: BudgetSettings;
  /** Default: none. */
  faults?: FaultRule[];
  /** Epoch ms now; inject for deterministic dates and budget windows. Default: Date.now. */
  clock?: () => number;
  /** Uniform 0..1; inject for deterministic fault rates and jitter. Default: Math.random. */
  random?: () => number;
  /** User login id named in status histories (userLoginUrl). Default: 'api'. */
  userLoginId?: string;
  /** Largest request body accepted, in bytes (413 above). Default: 16 MiB. */
  maxBodyBytes?: number;
}

/** Defaults of the sandbox, one place. */
export const sandboxDefaults = {
  // 'observed': the service as it really answers (issue 11). The default of the sandbox command, the demo, the
  // benchmarks, the chaos run and the integration tests, all of which read this one value.
  profile: 'observed' as SandboxProfile,
  invalidActions: 'null' as 'null' | 'absent',
  host: '127.0.0.1',
  port: 0,
  key: 'demo',
  secret: 'demo',
  data: 'demo',
  userLoginId: 'api',
  maxBodyBytes: 16 * 1024 * 1024,
} as const;
