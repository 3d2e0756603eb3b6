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
