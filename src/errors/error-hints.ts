/**
 * What to do about a failure, by code: the engine's table. Service errors carry theirs from here (src/client/answers/errors.ts),
 * the runner its TRANSIENT and INTERNAL; a kind's own codes are in its declaration (`failures`), and `jobs show` falls
 * back on both when a job's trace carries no hint.
 */
export const HINTS = {
  // A record that names what the service lacks; one malformed or wrong in itself has RECORD_HINT instead.
  BAD_RECORD:
    "Add the product or facility to the service, or map the upstream name to the service's in MAPPING_FILE (docs/mapping.md), " +
    'then retry; or fix the record upstream (a corrected delivery is synced as a new job).',
  CONFLICT: 'The service holds something different from the record; compare them, settle it in the service, then retry.',
  ORDER_COMPLETED:
    'The order is completed (or cancelled) in the service, so it cannot be modified until made editable again (actionUrlEdit); ' +
    'do so, then retry. A 403 here is not about the API key, whose rights have no scopes.',
  SERVICE_REFUSED: 'The service refused the request; read the message, fix the cause, then retry.',
  // Refusals about the account pause the stream (its jobs wait, none fails): `resume` runs them again, not `jobs retry`.
  UNAUTHORIZED:
    'Check INVENTORY_API_KEY and INVENTORY_API_SECRET (a revoked key answers 401 to everything). The stream pauses after ' +
    'refusals in a row and its jobs wait: a worker reads credentials kept in their files (INVENTORY_API_KEY_FILE) again ' +
    'and resumes by itself; set in the environment, restart it with the new ones, then: inventory-sync resume',
  FORBIDDEN:
    'The API key lacks the right for this action; grant it in the service. The stream pauses after refusals in a row ' +
    'and its jobs wait: after the fix, inventory-sync resume',
  NOT_FOUND: 'The entity does not exist in the service (check the account and the URL), then retry.',
  DUPLICATE: 'The record already exists in the service; compare it with the record, then retry.',
  MISSING_REFERENCE:
    'The request names an object the service does not have (product, facility, order); add it or fix the record, then retry.',
  INTEGRITY_VIOLATION: 'Either the record exists already or it names a missing object; check the service, then retry.',
  VALIDATION: 'The service refused the request as invalid; fix the record (see the message), then retry.',
  RATE_LIMITED: 'Over the service budget; the job waits for the reset. Lower INVENTORY_*_PER_MINUTE if it recurs.',
  REDIS:
    'Redis failed (down, a cluster moving slots, or REDIS_URL at one node of a cluster); retried with backoff. ' +
    'Check Redis and REDIS_URL / REDIS_CLUSTER_NODES.',
  TRANSIENT:
    'Something failed for now (the service, the network, Redis, a busy lock); retried with backoff. ' +
    'Once its attempts are spent, retry the job when it answers again.',
  BAD_RESPONSE: 'The service answered in an unexpected shape; report it with this trace.',
  NOT_FOLLOWED:
    "This program refused to send the request, the service was not asked: its path would leave the account's API " +
    "(/<account>/api/) once a server resolves its dot-segments. When the path holds the record's key (an orderId such as " +
    'A/../../../B), correct the key upstream; when the service answered it, report it with this trace. Retrying cannot help.',
  HELD:
    'Nothing to do: this call of the service failed again and again, so it is held and the job waits at this step (no attempt ' +
    'spent); one real request tries it at growing intervals and the job goes on by itself once it works (docs/runbooks/one-call-fails.md).',
  BAD_BATCH:
    'The intake job is not a batch written by `import` (its data is damaged); ' +
    'remove it from its `{stream}-intake` queue in the dashboard (/queues) and import the file again.',
  INTERNAL: 'A fault in the program or its Redis; retried with backoff. If it persists, report it with the job trace, then retry.',
} as const satisfies Record<string, string>;

/**
 * The hint of a BAD_RECORD that is wrong in itself (its shape, a field, a line of its file, a product listed twice): no
 * catalog or mapping change helps, and neither does a retry.
 */
export const RECORD_HINT =
  'Fix the record where it comes from and send it again (the feed, a push or an import): a corrected record is synced as a new job; ' +
  'retrying this one cannot help.';

/** The hint of a code: the engine's, else that of the kind of the list that declares it. */
export function hintFor(
  code: string | undefined,
  kinds: readonly { job: { failures?: Readonly<Record<string, string>> } }[] = [],
): string | undefined {
  if (!code) return undefined;
  if (Object.hasOwn(HINTS, code)) return (HINTS as Record<string, string>)[code];
  return kinds.find((k) => k.job.failures && Object.hasOwn(k.job.failures, code))?.job.failures?.[code];
}

/** Where a printed command line begins: `inventory-sync` and a command word, not yet with `--account`. */
const COMMAND_LINE = /\binventory-sync (?!--account )(?=[a-z])/g;

/**
 * The text with every command line it prints run for `account` (`inventory-sync --account NAME ...`): a command of one
 * account needs it when ACCOUNTS_FILE names several, so that a hint runs as printed where it was printed. Every hint
 * of an account passes here: a command's output (src/cli/hint-command.ts), each account's part of one, its alerts.
 */
export function forAccount(text: string, account: string): string {
  return text.replace(COMMAND_LINE, `inventory-sync --account ${account} `);
}
