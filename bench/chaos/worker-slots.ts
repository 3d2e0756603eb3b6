import { join } from 'node:path';
import { spawnCli, type CliProcess } from '../lib/cli-process.js';

export interface KillEvent {
  slot: number;
  pid: number;
  /** ms since the run started. */
  atMs: number;
  /** Fraction of the orders finished when it happened. */
  progress: number;
  downMs: number;
}

/** N `inventory-sync worker` processes, one per slot; a slot's log file collects every life of its worker. */
export class WorkerSlots {
  private readonly procs: CliProcess[] = [];
  private readonly ended: Array<{ slot: number; pid: number; code: number | string; running: boolean }> = [];
  readonly kills: KillEvent[] = [];
  /** Freezes (SIGSTOP): the slot, the pid, when (ms since the start) and how long. */
  readonly freezes: Array<{ slot: number; pid: number; atMs: number; ms: number }> = [];
  private readonly thaws = new Map<number, NodeJS.Timeout>();
  private started = 0;

  constructor(
    private readonly o: { root: string; count: number; env: Record<string, string>; logDir: string; useDist: boolean; t0: number },
  ) {}

  logFiles(): string[] {
    return Array.from({ length: this.o.count }, (_, i) => this.logFile(i));
  }

  private logFile(slot: number): string {
    return join(this.o.logDir, `worker-${slot + 1}.log`);
  }

  private spawn(slot: number): CliProcess {
    this.started++;
    const p = spawnCli({
      root: this.o.root,
      name: `worker-${slot + 1}`,
      args: ['worker'],
      env: this.o.env,
      logFile: this.logFile(slot),
      useDist: this.o.useDist,
    });
    void p.exited.then((code) => this.ended.push({ slot, pid: p.pid, code, running: !this.stopping }));
    this.procs[slot] = p;
    return p;
  }

  startAll(): void {
    for (let i = 0; i < this.o.count; i++) this.spawn(i);
  }

  /** Processes started so far, restarts included. */
  starts(): number {
    return this.started;
  }

  /** Workers that ended on their own (not killed, not stopped) while the run went on. */
  unexpectedExits(): Array<{ slot: number; pid: number; code: number | string }> {
    const killed = new Set(this.kills.map((k) => k.pid));
    return this.ended.filter((e) => e.running && !killed.has(e.pid)).map(({ slot, pid, code }) => ({ slot, pid, code }));
  }

  private stopping = false;

  /** Restarts any slot whose worker ended on its own (it is reported by unexpectedExits). */
  reviveDead(): void {
    if (this.stopping) return;
    this.procs.forEach((p, slot) => {
      if (!p.alive()) this.spawn(slot);
    });
  }

  /** SIGKILLs the worker of a slot, waits downMs, starts a new one in its place. */
  async killAndRestart(slot: number, downMs: number, progress: number): Promise<void> {
    const p = this.procs[slot];
    if (!p) return;
    this.kills.push({ slot, pid: p.pid, atMs: Date.now() - this.o.t0, progress, downMs });
    await p.kill();
    await new Promise((r) => setTimeout(r, downMs));
    this.spawn(slot);
  }

  /** Stops the worker of a slot (SIGSTOP) for `ms`, then lets it go on (SIGCONT); the run goes on meanwhile. */
  freeze(slot: number, ms: number): void {
    const p = this.procs[slot];
    if (!p?.alive() || this.thaws.has(p.pid)) return;
    this.freezes.push({ slot, pid: p.pid, atMs: Date.now() - this.o.t0, ms });
    process.kill(p.pid, 'SIGSTOP');
    this.thaws.set(
      p.pid,
      setTimeout(() => this.thaw(p.pid), ms),
    );
  }

  private thaw(pid: number): void {
    clearTimeout(this.thaws.get(pid));
    this.thaws.delete(pid);
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      // Killed while frozen: nothing to thaw.
    }
  }

  /** Lets every frozen worker go on (before stopping them: a stopped process would not hear SIGTERM). */
  thawAll(): void {
    for (const pid of [...this.thaws.keys()]) this.thaw(pid);
  }

  /** SIGTERM to every worker; answers each exit code and how long it took. */
  async stopAll(graceMs: number): Promise<Array<{ slot: number; code: number | string; ms: number }>> {
    this.stopping = true;
    this.thawAll();
    return Promise.all(
      this.procs.map(async (p, slot) => {
        const t = Date.now();
        const code = await p.stop(graceMs);
        return { slot, code, ms: Date.now() - t };
      }),
    );
  }

  /** Kills whatever is still running (for error paths). */
  async killAll(): Promise<void> {
    this.stopping = true;
    this.thawAll();
    await Promise.all(this.procs.map((p) => p.kill()));
  }
}
