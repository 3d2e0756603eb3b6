import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { programKinds } from '../../jobs/kinds.js';
import { runCli as runProgram } from '../../src/cli/program.js';
import { defaultRedisGuard } from '../helpers/redis.js';
import { DIST_ENTRY } from '../setup/dist-entry.js';

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

/**
 * Starts the built program (dist/src/bin/inventory-sync.js, as an install runs it; test/setup/dist-setup.ts builds
 * it before the run when a source is newer) as a child process.
 */
export function spawnCli(args: string[], env: Record<string, string>, cwd = emptyCwd()): ChildProcess {
  return spawn(process.execPath, [...defaultRedisGuard(), DIST_ENTRY, ...args], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
}

/**
 * Runs one command line to its end, in this process: the program and the kinds the entry point runs, with the exit
 * code it would exit with. What only a process shows (signals, a working folder's .env, a stdout nothing else writes
 * to) is for spawnCli; with `cwd`, or a NODE_ variable in `env`, it runs as a child too.
 */
export async function runCli(
  args: string[],
  env: Record<string, string>,
  o: { input?: string; cwd?: string; timeoutMs?: number } = {},
): Promise<CliRun> {
  // What Node reads at a process's start (NODE_OPTIONS' import hooks, NODE_EXTRA_CA_CERTS) needs a process.
  if (o.cwd !== undefined || Object.keys(env).some((k) => k.startsWith('NODE_'))) return collect(spawnCli(args, env, o.cwd), o);
  const [out, err] = [textSink(), textSink()];
  const stop = new AbortController();
  const stdin = Readable.from(o.input ? [o.input] : []);
  const run = runProgram(args, { env, stdout: out.stream, stderr: err.stream, stdin, stop: stop.signal }, programKinds);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      stop.abort();
      reject(new Error(`CLI did not finish within ${o.timeoutMs ?? 60_000} ms\nstdout:\n${out.text()}\nstderr:\n${err.text()}`));
    }, o.timeoutMs ?? 60_000);
  });
  try {
    const code = await Promise.race([run, late]);
    return { code, signal: null, stdout: out.text(), stderr: err.text() };
  } finally {
    clearTimeout(timer);
  }
}

/** A stream that keeps what is written to it, as a child's piped stdout would (not a terminal). */
function textSink(): { stream: Writable; text(): string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
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
