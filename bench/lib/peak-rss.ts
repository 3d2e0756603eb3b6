import { readFileSync } from 'node:fs';

function statusKb(pid: number, field: 'VmHWM' | 'VmRSS'): number | undefined {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+)\\s+kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Peak resident memory (VmHWM) of a live process in bytes, from /proc; undefined where /proc is absent. */
export const peakRss = (pid: number): number | undefined => statusKb(pid, 'VmHWM');

/** Resident memory now (VmRSS) of a live process in bytes, from /proc; undefined where /proc is absent. */
export const currentRss = (pid: number): number | undefined => statusKb(pid, 'VmRSS');

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
