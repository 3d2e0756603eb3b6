/** Resolves when the process is asked to stop (the first SIGTERM/SIGINT aborts `stop`). */
export function untilStopped(stop: AbortSignal): Promise<void> {
  if (stop.aborted) return Promise.resolve();
  return new Promise((resolve) => stop.addEventListener('abort', () => resolve(), { once: true }));
}
