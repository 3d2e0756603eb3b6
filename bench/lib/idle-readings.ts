/**
 * What bench/accounts-idle.ts reads of its Redis and its worker processes while they idle: INFO figures summed over
 * the masters (one server, or every master of a cluster), the accounts open, the due set caught up, and each
 * process's resident memory at rest.
 */
import type { Redis } from 'ioredis';
import { median } from './median.js';
import { currentRss } from './peak-rss.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The masters' INFO fields, summed (one server, or every master of the cluster). */
export async function infoSum(nodes: Redis[], field: string, section: string): Promise<number> {
  let sum = 0;
  for (const n of nodes) sum += Number(new RegExp(`${field}:(\\d+)`).exec(await n.info(section))?.[1] ?? 0);
  return sum;
}

/** Every command's calls (INFO commandstats), summed over the masters. */
export async function commandCalls(nodes: Redis[]): Promise<Map<string, number>> {
  const calls = new Map<string, number>();
  for (const n of nodes)
    for (const m of (await n.info('commandstats')).matchAll(/cmdstat_([\w|]+):calls=(\d+)/g))
      calls.set(m[1]!, (calls.get(m[1]!) ?? 0) + Number(m[2]));
  return calls;
}

export async function countKeys(nodes: Redis[]): Promise<number> {
  let sum = 0;
  for (const n of nodes) sum += await n.dbsize();
  return sum;
}

/** Accounts a process has open (a turn): the members of the ready set's leases (`{<prefix>~ready~N}:lease`), over every master. */
export async function leased(nodes: Redis[], prefix: string): Promise<number> {
  let n = 0;
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, batch] = await node.scan(cursor, 'MATCH', `{${prefix}~ready~*}:lease`, 'COUNT', 1000);
      cursor = next;
      for (const key of batch) n += await node.zcard(key);
    } while (cursor !== '0');
  }
  return n;
}

/**
 * Waits until no member of the due set (on whichever master holds it) is more than 2 s overdue: the first
 * polls of every account, all due at its start, are done. Answers the ms waited.
 */
export async function dueCaughtUp(nodes: Redis[], prefix: string, limitMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    let overdue = 0;
    // `<prefix>:due`, or `{<prefix>}:due` on a cluster (the prefix in its hash tag): asked of every master, the others refuse.
    for (const n of nodes)
      for (const key of [`${prefix}:due`, `{${prefix}}:due`]) overdue += await n.zcount(key, '-inf', Date.now() - 2000).catch(() => 0);
    if (overdue === 0) return Date.now() - started;
    if (Date.now() - started > limitMs) throw new Error(`${overdue} scheduled pulls still overdue after ${limitMs} ms`);
    await sleep(500);
  }
}

/**
 * Each process's VmRSS read once a second until stop(), which answers the sum of the processes' medians and of their
 * highest readings.
 */
export function restingRss(pids: number[]): { stop(): { median: number; max: number } } {
  const readings = pids.map(() => [] as number[]);
  const read = () => pids.forEach((pid, i) => readings[i]!.push(...[currentRss(pid)].filter((v): v is number => v !== undefined)));
  read();
  const timer = setInterval(read, 1000);
  return {
    stop() {
      clearInterval(timer);
      read();
      return {
        median: readings.reduce((sum, r) => sum + median(r), 0),
        max: readings.reduce((sum, r) => sum + Math.max(0, ...r), 0),
      };
    },
  };
}
