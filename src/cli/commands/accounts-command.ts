import { readySet } from '../../queue/dispatch/ready-set.js';
import { plural } from '../../ops/state-words.js';
import { Command } from 'commander';
import { accountPrefix, basePrefix, chooseAccount, defaultAccount, isAccountName, readAccounts } from '../../../config/accounts.js';
import type { CliIo } from '../../app/cli-io.js';
import { writeJson } from '../../app/command-context.js';
import { connectRedis } from '../../app/connect-redis.js';
import type { Kind } from '../../kinds/kind.js';
import { findRemovedAccounts, purgePlan, readAccountState } from '../../ops/accounts-report.js';
import { openStreamQueues } from '../../queue/stream-queues.js';
import { unlinkKeysUnder } from '../../redis/key-scan.js';
import type { CommandResult } from '../command-result.js';
import { ExitCode, UsageError } from '../exit-codes.js';
import { renderAccounts, type AccountsList } from '../render-accounts.js';

/** `accounts list [--json]`, `accounts purge NAME [--yes]`: the deployment's accounts, and a removed one's data deleted. */
export function accountsCommand(io: CliIo, done: CommandResult, kinds: readonly Kind[]): Command {
  const accounts = new Command('accounts').description("the accounts of ACCOUNTS_FILE and their state; a removed account's data deleted");

  accounts
    .command('list')
    .description(
      'each account (of ACCOUNTS_FILE, or `default`): its key prefix, service, jobs to run and failed per stream, held streams; ' +
        'and the accounts whose data is in Redis but that the file no longer names',
    )
    .option('--json', 'machine-readable output')
    .action(async (o: { json?: boolean }) => listAccounts(io, done, kinds, o));

  accounts
    .command('purge <name>')
    .description(
      'delete every Redis key of an account that ACCOUNTS_FILE no longer names (its jobs, cursors, budgets, holds); ' +
        'without --yes, say what would be deleted',
    )
    .option('--yes', 'delete them')
    .action(async (name: string, o: { yes?: boolean }) => purgeAccount(io, done, kinds, name, o));

  return accounts;
}

/** `accounts list`: each shown account's state read from Redis, and the removed accounts, written as text or JSON. */
async function listAccounts(io: CliIo, done: CommandResult, kinds: readonly Kind[], o: { json?: boolean }): Promise<void> {
  const all = readAccounts(io.env, {}, kinds, io.dotenv);
  const shown = io.account === undefined ? all.accounts : [chooseAccount(all, io.account)];
  const redis = await connectRedis(all.accounts[0]!.config.redis);
  try {
    const states = [];
    for (const { name, config } of shown) {
      const queues = openStreamQueues(redis, config.redis.prefix, kinds);
      try {
        const service = config.service ? { account: config.service.account, baseUrl: config.service.baseUrl } : null;
        states.push(await readAccountState(redis, queues, { account: name, service }));
      } finally {
        await queues.close();
      }
    }
    const named = new Set(all.accounts.map((a) => a.name));
    const list: AccountsList = {
      file: all.file ?? null,
      accounts: states,
      removed: await findRemovedAccounts(redis, basePrefix(io.env), named),
    };
    if (o.json) writeJson(io, list);
    else io.stdout.write(renderAccounts(list));
    done(ExitCode.ok);
  } finally {
    redis.disconnect();
  }
}

/** `accounts purge NAME`: refuses a named or running account, else says (or, with --yes, deletes) its keys. */
async function purgeAccount(io: CliIo, done: CommandResult, kinds: readonly Kind[], name: string, o: { yes?: boolean }): Promise<void> {
  if (name === defaultAccount)
    throw new UsageError(
      "accounts purge: `default` is the environment's account (QUEUE_PREFIX's keys), never purged; " +
        "purge deletes a removed account's keys",
    );
  if (!isAccountName(name)) throw new UsageError(`accounts purge: "${name.slice(0, 40)}" is no account's name (1 to 32 of a-z, 0-9 and -)`);
  const all = readAccounts(io.env, {}, kinds, io.dotenv);
  if (all.accounts.some((a) => a.name === name))
    throw new UsageError(
      `accounts purge: ACCOUNTS_FILE (${all.file}) still names ${name}: remove it from the file first ` +
        '(the workers stop it when they read the file again), then purge it',
    );
  const prefix = accountPrefix(basePrefix(io.env), name);
  const redis = await connectRedis(all.accounts[0]!.config.redis);
  try {
    const plan = await purgePlan(redis, prefix);
    if (plan.workers > 0)
      throw new UsageError(
        `accounts purge: ${plural(plan.workers, 'worker')} still ${plan.workers === 1 ? 'runs' : 'run'} ` +
          `account ${name} (prefix ${prefix}): ` +
          'wait until they have read ACCOUNTS_FILE again (a minute at most), then purge it',
      );
    if (plan.keys === 0) {
      io.stderr.write(
        `No keys under prefix ${prefix} (account ${name}): nothing to delete. ` +
          'inventory-sync accounts list names the removed accounts.\n',
      );
      return done(ExitCode.someFailed);
    }
    if (!o.yes) {
      io.stdout.write(
        `Would delete ${plan.keys} key(s) under prefix ${prefix} (account ${name}): its jobs, cursors, budgets and holds.\n` +
          `Nothing deleted. To delete them: inventory-sync accounts purge ${name} --yes\n`,
      );
      return done(ExitCode.usage);
    }
    const deleted = await unlinkKeysUnder(redis, prefix);
    // Its place in the deployment's ready set, if a mark left one (src/queue/dispatch/).
    const { base, shards } = all.accounts[0]!.config.dispatch;
    await readySet(redis, base, shards).forget(name);
    io.stdout.write(`Deleted ${deleted} key(s) under prefix ${prefix} (account ${name}).\n`);
    done(ExitCode.ok);
  } finally {
    redis.disconnect();
  }
}
