/** The dashboard's sessions and login limits; startDashboard's `limits` option overrides any of them. */
export interface DashboardLimits {
  /** Life of a session from its login, in ms. */
  sessionTtlMs: number;
  /** A session unused this long ends, in ms. */
  sessionIdleMs: number;
  /** Sessions held at once; past it the oldest ends. */
  maxSessions: number;
  /** How often ended sessions and old login attempts are swept from memory, in ms. */
  sweepMs: number;
  /** Login attempts one client address may make per window (a successful one is given back). */
  loginAttemptsPerClient: number;
  /** Login attempts all clients together may make per window. */
  loginAttemptsOverall: number;
  /** The window of both login limits, in ms. */
  loginWindowMs: number;
  /** Pause before a wrong login answers, in ms. */
  failedLoginPauseMs: number;
}

/** Defaults of the dashboard, one place (its host and port are in config/defaults.ts). */
export const dashboardDefaults: DashboardLimits & { minPasswordLength: number } = {
  sessionTtlMs: 12 * 3600_000,
  sessionIdleMs: 2 * 3600_000,
  maxSessions: 1_000,
  sweepMs: 60_000,
  loginAttemptsPerClient: 5,
  loginAttemptsOverall: 30,
  loginWindowMs: 60_000,
  failedLoginPauseMs: 300,
  /** Shortest DASHBOARD_PASSWORD accepted on a host other machines can reach. */
  minPasswordLength: 12,
};
