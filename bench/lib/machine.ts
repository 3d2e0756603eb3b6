import { execFileSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';

/** What a benchmark figure was measured on. */
export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGb: number;
  node: string;
  redis: string;
  platform: string;
  date: string;
  /** Load average over 1, 5 and 15 minutes when read: how busy the shared machine was (2 cores: above 2 is queueing). */
  load: number[];
}

function redisVersion(): string {
  try {
    return /v=(\S+)/.exec(execFileSync('redis-server', ['--version'], { encoding: 'utf8' }))?.[1] ?? 'unknown';
  } catch {
    return 'not found';
  }
}

export function machine(): Machine {
  return {
    // nproc: the CPUs this process may use.
    cpus: Number(execFileSync('nproc', { encoding: 'utf8' }).trim()) || cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    memoryGb: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    redis: redisVersion(),
    platform: `${process.platform} ${process.arch}`,
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    load: loadavg().map((l) => Math.round(l * 10) / 10),
  };
}

export function machineLine(m: Machine): string {
  return `${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGb} GB RAM, Node ${m.node}, Redis ${m.redis}, ${m.platform}; ${m.date}; load average ${m.load.join(', ')}`;
}
