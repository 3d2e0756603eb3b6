#!/usr/bin/env node
// The entry point: the only place that reads process.env, installs signal handlers and calls process.exit.
import { config as loadDotenv } from 'dotenv';
import { runCli } from '../cli/program.js';
import { programKinds } from '../../jobs/kinds.js';

// A .env file in the working folder fills in what the environment does not set; which it set is kept for messages.
const before = new Set(Object.keys(process.env));
const dotenv = new Set(Object.keys(loadDotenv({ quiet: true }).parsed ?? {}).filter((name) => !before.has(name)));

const stopper = new AbortController();
let signals = 0;
const onSignal = (signal: NodeJS.Signals) => {
  signals += 1;
  if (signals === 1) {
    process.stderr.write(`${signal}: finishing active work, then exiting (send it again to exit now)\n`);
    stopper.abort();
    return;
  }
  process.stderr.write(`${signal} again: exiting now\n`);
  process.exit(130);
};
process.on('SIGTERM', onSignal);
process.on('SIGINT', onSignal);

const code = await runCli(
  process.argv.slice(2),
  {
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    stop: stopper.signal,
    dotenv,
  },
  programKinds,
);
// Let stdout drain before exiting (it may be a pipe).
process.exitCode = code;
await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
process.exit(code);
