/**
 * A look run every `everyMs` (less often while `idle` says so), one at a time: a look asked for while one runs
 * (`lookNow`) is done right after it, since the running one may have missed its cause. A failed look goes to
 * `onError`, and the next one goes on. Used by the alerts and the service outage's watch.
 */
export function startLooking(
  lookOnce: () => Promise<unknown>,
  everyMs: number,
  onError: (err: unknown) => void,
  /** While `when()` is true, the regular looks come only every `everyMs` of these (`lookNow` looks whatever it says). */
  idle?: { everyMs: number; when: () => boolean },
): { lookNow(): void; stop(): Promise<void> } {
  let running: Promise<unknown> | undefined;
  let stopped = false;
  let again = false;
  let lastAt = 0;
  const look = () => {
    if (stopped) return;
    if (running) return void (again = true);
    lastAt = Date.now();
    running = lookOnce()
      .catch(onError)
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          look();
        }
      });
  };
  const tick = () => {
    if (idle && Date.now() - lastAt < idle.everyMs - everyMs / 2 && idle.when()) return;
    look();
  };
  const timer = setInterval(tick, everyMs);
  timer.unref();
  return {
    lookNow: look,
    async stop() {
      stopped = true;
      clearInterval(timer);
      // A look stuck on a Redis outage (or a probe on a hanging service) must not hold up the shutdown.
      await Promise.race([running, new Promise((r) => setTimeout(r, 2000).unref())]);
    },
  };
}
