import { readFileSync } from 'node:fs';

/** Ticks a second of /proc/<pid>/stat times (USER_HZ); 100 on Linux. */
const TICKS = 100;

/** CPU time (user + system) a live process has used so far, in ms; undefined where /proc is absent. */
export function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return ((utime + stime) * 1000) / TICKS;
  } catch {
    return undefined;
  }
}

/** This process's CPU time so far, in ms. */
export function ownCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
