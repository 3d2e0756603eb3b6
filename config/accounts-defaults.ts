/** The defaults of how `worker` with ACCOUNTS_FILE gives the accounts with work their turns (src/dispatch/). */
export const dispatchDefaults = {
  /** WORKER_ACCOUNTS_OPEN: accounts a `worker` process has open at once (their workers running), at most. */
  workerAccountsOpen: 50,
  /** ACCOUNT_IDLE_SECONDS: an open account with nothing to do this long is closed (it holds nothing then). */
  accountIdleSeconds: 15,
  /** ACCOUNT_TURN_SECONDS: an open account hands its place back after this long while other accounts wait for one. */
  accountTurnSeconds: 60,
  /** READY_SHARDS: the ready set's shards, each under a hash tag of its own (a Redis Cluster spreads them). */
  readyShards: 8,
  /** An open account's lease in the ready set, in ms (renewed each second): a process that died frees it this long after. */
  accountLeaseMs: 30_000,
  /** How often a process with free places looks at the ready set, in ms (a mark made in the process wakes it at once). */
  readyPollMs: 250,
  /**
   * How often a full process looks at its open accounts while others wait for a place (and how soon after a mark), in
   * ms: one with nothing to do hands its place over within this, not within the second of the usual look.
   */
  accountFullLookMs: 200,
  /** How soon an account with held jobs, or records waiting for a reference, takes a look again once closed, in ms. */
  accountLookAgainMs: 60_000,
  /** How often the accounts' queues are swept for work no mark told of (one process of the deployment), in ms. */
  accountsSweepMs: 60_000,
  /**
   * A polled stream of a closed account counts as behind, and the sweep samples its chart's minute, once it has not
   * caught up for its poll's period and this long, in ms (a poll that failed or did not catch up counts at once).
   */
  polledLateGraceMs: 30_000,
  /** Accounts in trouble but closed whose alerts the sweep's process looks at, at most, a sweep (the others at the next). */
  closedAlertsPerSweep: 200,
};

/** The defaults of how `status` and the dashboard's all-accounts page show many accounts (spread into config/defaults.ts). */
export const accountsViewDefaults = {
  /** `status` without `--account` prints a summary (then only the accounts that need a person) above this many accounts. */
  statusSummaryAbove: 5,
  /** Accounts that need a person `status`'s summary lists per page (`--limit`). */
  statusListLimit: 20,
  /** Accounts whose reads `status`'s summary sends in one pipeline (one server; on a Redis Cluster, one account's). */
  statusAccountsPerPipeline: 100,
  /** Pipelines `status`'s summary has in flight at once over its one connection. */
  statusReadsInFlight: 8,
  /** Accounts whose whole status (`status --all`, `--json`) is read at once over the one connection. */
  statusReportsInFlight: 8,
  /** Accounts on one page of the dashboard's all-accounts page (sorted by what needs a person, then by name). */
  accountsPageSize: 50,
  /** How long the all-accounts page answers from the accounts' state as read, in ms (shown as "as of"): one read per period. */
  accountsStateMs: 5_000,
};
