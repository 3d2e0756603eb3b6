import { sameSecret } from '../secrets/same-secret.js';
import type { ApiContext } from './api-context.js';
import { Budgets } from './budgets.js';
import { Clock } from './clock.js';
import { newCounters, type SandboxCounters } from './counters.js';
import { Faults } from './faults.js';
import { RequestLog } from './request-log.js';
import { profileRules, type ProfileRules } from './profile-rules.js';
import { loadSandboxData } from './sandbox-data.js';
import type { SandboxState } from './sandbox-entities.js';
import { sandboxDefaults, type DataSource, type LatencySettings, type SandboxOptions } from './sandbox-options.js';
import { SandboxStore } from './store.js';

/** Everything one running sandbox holds: the account's data, the settings in force, the counters. */
export class SandboxCore {
  readonly account: string;
  readonly clock: Clock;
  readonly random: () => number;
  readonly faults: Faults;
  readonly budgets = new Budgets();
  readonly maxBodyBytes: number;
  /** Fixed at start: a reset keeps it. */
  readonly profile: ProfileRules;
  /** The credentials the API and the admin accept: the options' until admin.setCredentials (a rotation); a reset restores them. */
  key: string;
  secret: string;
  latency: LatencySettings | null = null;
  counters: SandboxCounters = newCounters();
  /** Every API request since start or the last reset, for tests (GET /_admin/requests). */
  readonly requestLog = new RequestLog();
  store: SandboxStore;
  ctx: ApiContext;
  private readonly initial: SandboxState;

  constructor(private readonly options: SandboxOptions) {
    this.profile = profileRules(options.profile ?? sandboxDefaults.profile, options.invalidActions ?? sandboxDefaults.invalidActions);
    this.initial = loadSandboxData(options.data ?? sandboxDefaults.data, options.account);
    this.account = this.initial.account;
    this.clock = new Clock(options.clock);
    this.random = options.random ?? Math.random;
    this.faults = new Faults(this.random);
    this.maxBodyBytes = options.maxBodyBytes ?? sandboxDefaults.maxBodyBytes;
    this.key = '';
    this.secret = '';
    this.store = new SandboxStore(structuredClone(this.initial), this.profile.firstShipmentId);
    this.ctx = this.context();
    this.applySettings();
  }

  /**
   * Back to the start: the data given at start (or `data`, for this reset only), the budgets, latency and
   * faults of the options, zero counters.
   */
  reset(data?: DataSource): void {
    const state = data === undefined ? structuredClone(this.initial) : loadSandboxData(data, this.account);
    this.store = new SandboxStore(state, this.profile.firstShipmentId);
    this.counters = newCounters();
    this.requestLog.clear();
    this.ctx = this.context();
    this.applySettings();
  }

  /** Whether an authorization header carries the configured credentials (compared in constant time: API and admin). */
  authorized(header: string | undefined): boolean {
    const m = /^basic\s+(\S+)\s*$/i.exec(header ?? '');
    const given = m ? Buffer.from(m[1] as string, 'base64').toString('utf8') : '';
    return sameSecret(given, `${this.key}:${this.secret}`) && m !== null;
  }

  private applySettings(): void {
    this.key = this.options.key ?? sandboxDefaults.key;
    this.secret = this.options.secret ?? sandboxDefaults.secret;
    this.faults.set(this.options.faults ?? []);
    this.budgets.set(this.options.budgets ?? {});
    this.latency = this.options.latency ?? null;
  }

  private context(): ApiContext {
    const userLoginId = this.options.userLoginId ?? sandboxDefaults.userLoginId;
    return {
      store: this.store,
      clock: this.clock,
      counters: this.counters,
      profile: this.profile,
      userLoginUrl: this.store.url('userlogin', userLoginId),
    };
  }
}
