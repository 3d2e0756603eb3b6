import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, openSync, closeSync } from 'node:fs';
import { join } from 'node:path';

/** How to run the real `inventory-sync` entry point: from source through tsx, or the compiled dist. */
export function cliCommand(root: string, useDist: boolean): { command: string; args: string[] } {
  const dist = join(root, 'dist/src/bin/inventory-sync.js');
  if (useDist) {
    if (!existsSync(dist)) throw new Error(`${dist} is missing: run npm run build first, or leave out --dist`);
    return { command: process.execPath, args: [dist] };
  }
  return { command: process.execPath, args: ['--import', 'tsx', join(root, 'src/bin/inventory-sync.ts')] };
}

/** One child process of the CLI whose stdout and stderr are appended to a log file. */
export interface CliProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly pid: number;
  readonly logFile: string;
  /** Resolves with the exit code (or the signal's name) when the process has ended. */
  readonly exited: Promise<number | string>;
  alive(): boolean;
  /** SIGTERM, then SIGKILL after graceMs; resolves when it has exited. */
  stop(graceMs?: number): Promise<number | string>;
  kill(): Promise<number | string>;
}

export interface SpawnCliOptions {
  root: string;
  name: string;
  args: string[];
  env: Record<string, string>;
  logFile: string;
  useDist?: boolean;
}

/** Spawns `inventory-sync <args>` with exactly `env` added to PATH and HOME; output goes to logFile. */
export function spawnCli(o: SpawnCliOptions): CliProcess {
  const { command, args } = cliCommand(o.root, o.useDist ?? false);
  const fd = openSync(o.logFile, 'a');
  const child = spawn(command, [...args, ...o.args], {
    cwd: o.root,
    // Only what the child needs: no .env of the developer, no secrets of this process.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...o.env },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1));
    child.once('error', () => resolve(-1));
  });
  const alive = () => child.exitCode === null && child.signalCode === null;
  return {
    name: o.name,
    child,
    pid: child.pid ?? -1,
    logFile: o.logFile,
    exited,
    alive,
    async stop(graceMs = 30_000) {
      if (!alive()) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
    async kill() {
      if (alive()) child.kill('SIGKILL');
      return exited;
    },
  };
}

/** Reads the output of a process until `pattern` matches; answers the match. */
export async function waitForLog(readText: () => string, pattern: RegExp, timeoutMs: number, what: string): Promise<RegExpMatchArray> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const m = readText().match(pattern);
    if (m) return m;
    if (Date.now() > until) throw new Error(`${what}: no ${pattern} in its output within ${timeoutMs} ms`);
    await new Promise((res) => setTimeout(res, 100));
  }
}
