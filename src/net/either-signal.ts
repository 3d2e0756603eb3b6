import { setMaxListeners } from 'node:events';

/**
 * A signal aborted when any of `signals` is, for a run that ends long before them (a scheduled pull under its
 * account's and its process's stop signals), and its release: the listeners it added to them, removed once the run
 * ends. Node's AbortSignal.any keeps a WeakRef to each signal it makes in every source signal's set until a full
 * garbage collection: under thousands of polls a minute on signals that live as long as the process, those pile up
 * in the old generation, and the process's memory with them (issue 56).
 */
export function eitherSignal(signals: readonly AbortSignal[]): { signal: AbortSignal; release(): void } {
  // Every run at once adds a listener to the same long-lived signals (32 scheduled pulls at once, say), each removed as
  // its run ends: more than Node's 10 is no leak, so it is not warned of (a warning would bypass the logger).
  setMaxListeners(0, ...signals);
  const either = new AbortController();
  const aborted = signals.find((s) => s.aborted);
  if (aborted) {
    either.abort(aborted.reason);
    return { signal: either.signal, release: () => undefined };
  }
  const listeners = signals.map((s) => {
    const onAbort = () => either.abort(s.reason);
    s.addEventListener('abort', onAbort, { once: true });
    return () => s.removeEventListener('abort', onAbort);
  });
  return { signal: either.signal, release: () => listeners.forEach((remove) => remove()) };
}
