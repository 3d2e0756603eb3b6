/**
 * A look run every `everyMs`, one at a time: a look asked for while one runs (`lookNow`) is done right after it, since
 * the running one may have missed its cause. A failed look goes to `onError`, and the next one goes on. Used by the
 * alerts and the service outage's watch.
 */
export function startLooking(
  lookOnce: () => Promise<unknown>,
  everyMs: number,
  onError: (err: unknown) => void,
): { lookNow(): void; stop(): Promise<void> } {
  let running: Promise<unknown> | undefined;
  let stopped = false;
  let again = false;
  const look = () => {
    if (stopped) return;
    if (running) return void (again = true);
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
  const timer = setInterval(look, everyMs);
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
