import { readFileSync } from 'node:fs';

/** Peak resident memory (VmHWM) of a live process in bytes, from /proc; undefined where /proc is absent. */
export function peakRss(pid: number): number | undefined {
  try {
    const m = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Samples a process's peak memory every intervalMs until stop() is called; answers the highest seen. */
export function watchPeakRss(pid: number, intervalMs = 20): { stop(): number | undefined } {
  let peak: number | undefined;
  const sample = () => {
    const v = peakRss(pid);
    if (v !== undefined && (peak === undefined || v > peak)) peak = v;
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}
