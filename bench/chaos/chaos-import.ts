import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliCommand } from '../lib/cli-process.js';
import type { ImportResult } from '../../src/feed/importer.js';
import type { ImportPlan } from './import-plan.js';

/** Records per import batch in the chaos run (1,000 by default): many batches, many chances to be hit mid-expansion. */
const IMPORT_BATCH_SIZE = 20;

/** The counts `import --json` prints. */
export type ImportCounts = Omit<ImportResult, 'ms'>;

/** One run of `inventory-sync import`: when, how it ended, what it printed. */
export interface ImportRun {
  /** `storm`: during the storm (again after an exit 3); `again`: the same file once everything has drained. */
  phase: 'storm' | 'again';
  /** Fraction of the orders finished when it started. */
  progress: number;
  /** Exit code, the signal's name, or `timeout`. */
  code: number | string;
  ms: number;
  counts?: ImportCounts;
}

/** Exit code of the CLI when Redis (or another server) could not be reached. */
export const EXIT_UNREACHABLE = 3;

export interface ChaosImporterOptions {
  root: string;
  /** The workers' environment: the same Redis and prefix. */
  env: Record<string, string>;
  /** The arguments naming the account the file is imported into (`--account default` with several accounts). */
  accountArgs?: string[];
  logDir: string;
  useDist: boolean;
  plan: ImportPlan;
  /** Kill a run after this long. */
  timeoutMs?: number;
}

/**
 * Runs the real `inventory-sync import <stream> FILE --json` (queue only) as a child process, as an operator would.
 * Its log lines (stderr) go to `import.log`, what it prints (stdout) to `import-N.json`; both are scanned for secrets.
 */
export class ChaosImporter {
  readonly runs: ImportRun[] = [];
  readonly file: string;
  readonly plan: ImportPlan;
  private readonly outs: string[] = [];
  private child: ChildProcess | undefined;

  constructor(private readonly o: ChaosImporterOptions) {
    this.plan = o.plan;
    this.file = join(o.logDir, `import-${o.plan.stream}.ndjson`);
    writeFileSync(this.file, `${o.plan.lines.join('\n')}\n`);
  }

  /** The log file every run writes its stderr to (logger JSON lines). */
  logFile(): string {
    return join(this.o.logDir, 'import.log');
  }

  /** What each run printed on stdout (`--json`), one file a run. */
  outputFiles(): string[] {
    return [...this.outs];
  }

  /** One run; answers how it ended. Small batches, so that kills and the Redis restart can land while batches are expanded. */
  async run(phase: ImportRun['phase'], progress: number): Promise<ImportRun> {
    const { command, args } = cliCommand(this.o.root, this.o.useDist);
    const fd = openSync(this.logFile(), 'a');
    const t = Date.now();
    const child = spawn(
      command,
      [
        ...args,
        ...(this.o.accountArgs ?? []),
        'import',
        this.o.plan.stream,
        this.file,
        '--json',
        '--batch-size',
        String(IMPORT_BATCH_SIZE),
      ],
      {
        cwd: this.o.root,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...this.o.env },
        stdio: ['ignore', 'pipe', fd],
      },
    );
    closeSync(fd);
    this.child = child;
    let stdout = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, this.o.timeoutMs ?? 120_000);
    const code = await new Promise<number | string>((resolve) => {
      child.once('close', (c, signal) => resolve(c ?? signal ?? -1));
      child.once('error', () => resolve(-1));
    });
    clearTimeout(timer);
    this.child = undefined;
    const out = join(this.o.logDir, `import-${this.runs.length + 1}.json`);
    writeFileSync(out, stdout);
    this.outs.push(out);
    const run: ImportRun = { phase, progress, code: timedOut ? 'timeout' : code, ms: Date.now() - t };
    const counts = parseCounts(stdout);
    if (counts) run.counts = counts;
    this.runs.push(run);
    return run;
  }

  /** Runs the import again while it exits 3 (Redis restarting, or full: an operator's script would try again), `attempts` times, 1 s apart. */
  async runUntilDone(phase: ImportRun['phase'], progress: () => number, note: (what: string) => void, attempts = 40): Promise<ImportRun> {
    for (let i = 1; ; i++) {
      note(`import ${this.o.plan.stream} (${this.o.plan.lines.length} lines): started${i > 1 ? ' again' : ''}`);
      const run = await this.run(phase, progress());
      note(
        `import ${this.o.plan.stream}: exit ${run.code} after ${(run.ms / 1000).toFixed(1)} s${run.counts ? `, ${countsLine(run.counts)}` : ''}`,
      );
      if (run.code !== EXIT_UNREACHABLE || i >= attempts) return run;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }

  /** Kills a run still going (for error paths). */
  kill(): void {
    this.child?.kill('SIGKILL');
  }
}

/** "81 records: 76 queued, 5 duplicates, 3 invalid, 1 batch(es)" */
export function countsLine(c: ImportCounts): string {
  return `${c.records} records: ${c.queued} queued, ${c.duplicates} duplicates, ${c.invalid} invalid, ${c.batches} batch(es)`;
}

function parseCounts(stdout: string): ImportCounts | undefined {
  try {
    const imported = (JSON.parse(stdout) as { imported?: Partial<ImportCounts> }).imported;
    const keys = ['lines', 'records', 'queued', 'duplicates', 'invalid', 'batches', 'malformed'] as const;
    if (!imported || keys.some((k) => typeof imported[k] !== 'number')) return undefined;
    return Object.fromEntries(keys.map((k) => [k, imported[k]])) as unknown as ImportCounts;
  } catch {
    return undefined;
  }
}
