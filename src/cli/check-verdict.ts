import type { StoreCheck } from '../app/check-store.js';
import type { CheckReport, CheckVerdict } from '../ops/check/check-types.js';

/** `check`'s whole report: the account's, the feed's and Redis's, and the store's when SHOPIFY_STORE_URL is set. */
export type FullCheck = CheckReport & { store?: StoreCheck };

const EXIT: Record<CheckVerdict, 0 | 1 | 3> = { ready: 0, gaps: 1, unreachable: 3 };

/**
 * The one verdict of everything `check` read, and the exit code that says it: unreachable (3) when the service, the
 * feed or the store could not be read or refused, else gaps (1) when any of them lacks something, else ready (0). The
 * heading, the closing line, `--json`'s `verdict` and `exitCode` and the exit status all come from it.
 */
export function withStore(report: CheckReport, store: StoreCheck | undefined): FullCheck {
  if (!store) return report;
  const storeVerdict: CheckVerdict = store.state !== 'ok' ? 'unreachable' : store.gaps > 0 ? 'gaps' : 'ready';
  const verdict = EXIT[storeVerdict] > EXIT[report.verdict] ? storeVerdict : report.verdict;
  return { ...report, verdict, exitCode: EXIT[verdict], store };
}
