import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const entry = join(root, 'src/bin/inventory-sync.ts');
const tsxLoader = pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href;

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A working folder of its own, so no stray .env is read. */
export function freshCwd(): string {
  return mkdtempSync(join(tmpdir(), 'isync-cli-'));
}

let sharedCwd: string | undefined;

/** An empty working folder, one per test process: no stray .env is read. */
function emptyCwd(): string {
  sharedCwd ??= freshCwd();
  return sharedCwd;
}

/** Only what a child needs from this process: never the parent's QUEUE_PREFIX or credentials. */
export function baseEnv(): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'warn' };
}

/** Starts the real entry point (src/bin/inventory-sync.ts under tsx) as a child process. */
export function spawnCli(args: string[], env: Record<string, string>, cwd = emptyCwd()): ChildProcess {
  return spawn(process.execPath, ['--import', tsxLoader, entry, ...args], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** Runs one command line to its end. */
export function runCli(
  args: string[],
  env: Record<string, string>,
  o: { input?: string; cwd?: string; timeoutMs?: number } = {},
): Promise<CliRun> {
  const child = spawnCli(args, env, o.cwd);
  return collect(child, o);
}

export function collect(child: ChildProcess, o: { input?: string; timeoutMs?: number } = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin?.end(o.input ?? '');
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`CLI did not finish within ${o.timeoutMs ?? 60_000} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, o.timeoutMs ?? 60_000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
  });
}
