import { Command, CommanderError } from 'commander';
import type { CliIo } from '../app/cli-io.js';
import { accountsCommand } from './commands/accounts-command.js';
import { auditCommand } from './commands/audit-command.js';
import { catalogCommand } from './commands/catalog-command.js';
import { checkCommand } from './commands/check-command.js';
import { dashboardCommand } from './commands/dashboard-command.js';
import { demoCommand } from './commands/demo-command.js';
import { findCommand } from './commands/find-command.js';
import { importCommand } from './commands/import-command.js';
import { jobsCommand } from './commands/jobs-command.js';
import { receiveCommand } from './commands/receive-command.js';
import { reconcileCommand } from './commands/reconcile-command.js';
import { resumeCommand } from './commands/resume-command.js';
import { resyncCommand } from './commands/resync-command.js';
import { sandboxCommand } from './commands/sandbox-command.js';
import { statusCommand } from './commands/status-command.js';
import { syncCommand } from './commands/sync-command.js';
import { workerCommand } from './commands/worker-command.js';
import { describeFailure, ExitCode, type ExitCodeValue } from './exit-codes.js';
import { accountHintsStream } from './hint-command.js';
import type { CommandResult } from './command-result.js';
import type { Kind } from '../kinds/kind.js';

/** The commander program of docs/reference.md, writing to `io`. */
export function buildProgram(io: CliIo, done: CommandResult, kinds: readonly Kind[]): Command {
  // The commands read `--account` from their io, set before any of them runs.
  const cmdIo: CliIo = { ...io };
  const program = new Command('inventory-sync')
    .description('Keeps an inventory, order and shipment service in step with an upstream feed.')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .showHelpAfterError('(add --help for usage)')
    .allowExcessArguments(false)
    .option(
      '--account <name>',
      'the account of ACCOUNTS_FILE to act on (default: the only one; every one for status, jobs list, audit, reconcile)',
    )
    .option('--verbose', 'a one-shot command writes its info log records on stderr too (default: warnings and errors only)')
    .hook('preAction', (root, action) => {
      const { account, verbose } = root.opts<{ account?: string; verbose?: boolean }>();
      if (verbose) cmdIo.verbose = true;
      // The one dry-run switch: every part the command opens from its io reads only (src/app/cli-io.ts).
      if (action.opts<{ dryRun?: boolean }>().dryRun) cmdIo.dryRun = true;
      if (account === undefined) return;
      // Commander gives the program's option first, wherever it is: a command with its own `--account` (`sandbox
      // --account A`, the sandbox's account path) gets it back.
      if (action.options.some((o) => o.long === '--account')) action.setOptionValue('account', account);
      else {
        cmdIo.account = account;
        // Every command line it prints runs as printed: for this account, not the only or the first one.
        cmdIo.stdout = accountHintsStream(io.stdout, account);
        cmdIo.stderr = accountHintsStream(io.stderr, account);
      }
    });
  for (const make of commandFactories) program.addCommand(make(cmdIo, done, kinds));
  // addCommand does not pass settings down; every level must throw instead of exiting.
  const inherit = (cmd: Command) => {
    for (const sub of cmd.commands) {
      sub.copyInheritedSettings(program);
      inherit(sub);
    }
  };
  inherit(program);
  return program;
}

const commandFactories: Array<(io: CliIo, done: CommandResult, kinds: readonly Kind[]) => Command> = [
  workerCommand,
  receiveCommand,
  syncCommand,
  importCommand,
  jobsCommand,
  statusCommand,
  resumeCommand,
  catalogCommand,
  findCommand,
  reconcileCommand,
  resyncCommand,
  auditCommand,
  checkCommand,
  accountsCommand,
  dashboardCommand,
  sandboxCommand,
  demoCommand,
];

/**
 * Runs one command line (without `node script`) with the kinds of job the entry point hands in; answers the exit code.
 * Never calls process.exit.
 */
export async function runCli(argv: string[], io: CliIo, kinds: readonly Kind[]): Promise<ExitCodeValue> {
  let code: ExitCodeValue = ExitCode.ok;
  const program = buildProgram(
    io,
    (c) => {
      code = c;
    },
    kinds,
  );
  try {
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    const failure = describeFailure(err);
    for (const line of failure.lines) io.stderr.write(`${line}\n`);
    return failure.code;
  }
}
