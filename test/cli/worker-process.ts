import type { ChildProcess } from 'node:child_process';
import { spawnCli } from './run-cli.js';

export interface WorkerProcess {
  child: ChildProcess;
  /** Every stdout line so far (the worker logs JSON lines there). */
  stdoutLines: string[];
  stderr(): string;
  /** The metrics/health base URL from the "worker started" line ('off' when WORKER_HTTP_PORT=0). */
  httpUrl: Promise<string>;
  /** Sends a signal and resolves with the exit code and the ms it took to exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; ms: number }>;
}

/** Runs `inventory-sync worker` as a child process and follows its log lines. */
export function startWorkerProcess(env: Record<string, string>): WorkerProcess {
  const child = spawnCli(['worker'], env);
  const stdoutLines: string[] = [];
  let stderr = '';
  let partial = '';
  let resolveUrl: (url: string) => void = () => undefined;
  let rejectUrl: (err: Error) => void = () => undefined;
  const httpUrl = new Promise<string>((resolve, reject) => {
    resolveUrl = resolve;
    rejectUrl = reject;
  });
  // Stopped before it started (a test's setup failed elsewhere): only those who await httpUrl should hear of it.
  httpUrl.catch(() => undefined);
  child.stdout?.on('data', (d: Buffer) => {
    const text = partial + d.toString();
    const lines = text.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      stdoutLines.push(line);
      if (line.includes('worker started')) {
        resolveUrl((JSON.parse(line) as { http: string }).http);
      }
    }
  });
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      if (partial) stdoutLines.push(partial);
      rejectUrl(new Error(`worker exited (${code}) before it started:\n${stderr}\n${stdoutLines.join('\n')}`));
      resolve(code);
    }),
  );
  return {
    child,
    stdoutLines,
    stderr: () => stderr,
    httpUrl,
    async stop(signal = 'SIGTERM') {
      const started = Date.now();
      child.kill(signal);
      const code = await exited;
      return { code, ms: Date.now() - started };
    },
  };
}

/** Polls until `check` holds, or fails after timeoutMs. */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 30_000, what = 'condition'): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export { freePort } from '../kit/test-port.js';
