import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import type { ReconcileReport } from '../../src/ops/reconcile-types.js';
import { cliCommand } from '../lib/cli-process.js';
import { check, type CheckResult } from './check-types.js';

/** Runs the real `reconcile --json` against the world (stderr to reconcile.log): every synced record must match. */
export async function checkReconcile(
  root: string,
  env: Record<string, string>,
  logDir: string,
  useDist: boolean,
  /** `--account NAME` with several accounts (one account's reconcile each; reconcile-NAME.log). */
  accountArgs: string[] = [],
): Promise<CheckResult> {
  const { command, args } = cliCommand(root, useDist);
  const child = spawn(command, [...args, ...accountArgs, 'reconcile', '--json'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr.pipe(createWriteStream(join(logDir, accountArgs.length ? `reconcile-${accountArgs.at(-1)}.log` : 'reconcile.log')));
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  let report: ReconcileReport;
  try {
    report = JSON.parse(out) as ReconcileReport;
  } catch {
    return check('reconcile finds no drift', 0, [`reconcile exited ${code} without a report (see reconcile.log)`]);
  }
  const c = report.checked;
  const violations = report.drifts.map(
    (d) => `${d.stream} ${d.key}: ${d.kind} ${d.field}: service has ${d.service}, synced ${d.synced}${d.detail ? ` (${d.detail})` : ''}`,
  );
  if (code !== 0 && violations.length === 0) violations.push(`reconcile exited ${code}`);
  if (c.orders === 0 || c.stockPairs === 0 || c.boms === 0) violations.push(`reconcile compared too little: ${JSON.stringify(c)}`);
  return check(
    `reconcile finds no drift (${c.orders} orders, ${c.stockPairs} counted pairs, ${c.boms} BOMs; ${report.calls.collection} collection GETs)`,
    Object.values(c).reduce((a, b) => a + b, 0),
    violations,
  );
}
