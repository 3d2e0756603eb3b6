import { Command, Option } from 'commander';
import { defaults } from '../../../config/defaults.js';
import type { Kind } from '../../kinds/kind.js';
import { isLoopback } from '../../net/loopback.js';
import type { CliIo } from '../../app/cli-io.js';
import { loadConfig } from '../../app/command-context.js';
import { ExitCode, UsageError } from '../exit-codes.js';
import type { CommandResult } from '../command-result.js';
import { untilStopped } from '../until-stopped.js';
import {
  sandboxDefaults,
  WINDOW_SHAPES,
  type BudgetSettings,
  type SandboxProfile,
  type WindowShape,
} from '../../sandbox/sandbox-options.js';
import { port, positive, sandboxProfile } from './options.js';

interface Options {
  host: string;
  port: number;
  account?: string;
  data: string;
  key?: string;
  secret?: string;
  profile: SandboxProfile;
  totalPerMinute?: number;
  rateHeaders: 'every-answer' | 'on-429';
  window: WindowShape;
  /** False with --no-budgets. */
  budgets: boolean;
  store?: boolean;
  storePort: number;
}

/**
 * The budgets the sandbox enforces: an account's (the service's reported figures, the program's defaults: 120 POSTs and
 * 120 GETs a minute, 300 collection GETs an hour), with `--total-per-minute` one total beside them; X-RateLimit-* on
 * every answer (or on 429s only) as `--rate-headers` says. None with --no-budgets.
 */
function budgetsOf(o: Options): BudgetSettings | undefined {
  if (!o.budgets) return undefined;
  const minute = (limit: number) => ({ limit, windowMs: 60_000 });
  return {
    post: minute(defaults.postPerMinute),
    get: minute(defaults.getPerMinute),
    collection: { limit: defaults.collectionPerHour, windowMs: 3_600_000 },
    ...(o.totalPerMinute ? { total: minute(o.totalPerMinute) } : {}),
    rateHeaders: o.rateHeaders,
    window: o.window,
  };
}

/** `sandbox [--store]`: the embedded service (and a sandbox Shopify store beside it), until SIGTERM/SIGINT. */
export function sandboxCommand(io: CliIo, done: CommandResult, kinds: readonly Kind[]): Command {
  return new Command('sandbox')
    .description('the embedded service (an implementation of the service API, with admin endpoints for faults and budgets)')
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--port <port>', 'port (0 picks a free one)', port, 8080)
    .option('--account <account>', "account path component (default: the data's account, demo for demo and empty)")
    .option('--data <data>', 'demo, empty, or a JSON file of accounts data', 'demo')
    .option('--key <key>', 'API key it accepts (default: INVENTORY_API_KEY, else demo)')
    .option('--secret <secret>', 'API secret it accepts (default: INVENTORY_API_SECRET, else demo)')
    .option(
      '--profile <profile>',
      'observed: answers as the real service is seen to (docs/sandbox.md); spec: as strictly as the spec reads',
      sandboxProfile,
      sandboxDefaults.profile,
    )
    .option(
      '--total-per-minute <n>',
      'one budget of n requests a minute that every request spends (429 over it), as on accounts with one limit',
      positive,
    )
    .option('--no-budgets', "no budget at all (by default an account's: 120 POSTs and 120 GETs a minute, 300 collection GETs an hour)")
    .addOption(
      new Option('--rate-headers <when>', 'X-RateLimit-* on every answer, or on 429s only (as public evidence shows the real service)')
        .choices(['every-answer', 'on-429'])
        .default('every-answer'),
    )
    .addOption(
      new Option('--window <shape>', 'how the budget counts: fixed (aligned on the epoch), offset, sliding, token-bucket')
        .choices([...WINDOW_SHAPES])
        .default('fixed'),
    )
    .option('--store', "also a sandbox Shopify store, the orders' source of docs/shopify.md; prints its URL and credentials")
    .option('--store-port <port>', 'with --store: its port (0 picks a free one)', port, 8081)
    .action(async (o: Options) => {
      if (o.totalPerMinute && !o.budgets) throw new UsageError('--total-per-minute and --no-budgets exclude each other');
      loadConfig(io, kinds);
      // Its own credentials: INVENTORY_API_KEY/SECRET when set, so a worker with the same .env talks to it.
      const key = o.key || io.env.INVENTORY_API_KEY || 'demo';
      const secret = o.secret || io.env.INVENTORY_API_SECRET || 'demo';
      // demo/demo is public knowledge: on an address others can reach it would open the admin API to anyone.
      if (!isLoopback(o.host) && (key === sandboxDefaults.key || secret === sandboxDefaults.secret)) {
        throw new UsageError(
          `the sandbox on ${o.host} needs its own credentials: ` +
            'set --key and --secret (or INVENTORY_API_KEY and INVENTORY_API_SECRET); demo/demo is allowed on a loopback host only',
        );
      }
      const { sandboxBanner, startSandbox } = await import('../../sandbox/sandbox.js');
      const budgets = budgetsOf(o);
      const sandbox = await startSandbox({
        host: o.host,
        port: o.port,
        account: o.account,
        data: o.data,
        key,
        secret,
        profile: o.profile,
        budgets,
      });
      io.stdout.write(`${sandboxBanner(sandbox, o.data)}\n`);
      const total = o.totalPerMinute ? ` INVENTORY_REQUESTS_PER_MINUTE=${o.totalPerMinute}` : '';
      const shown = (given: string | undefined, name: string) =>
        given
          ? '<the value of --' + name + '>'
          : io.env[`INVENTORY_API_${name.toUpperCase()}`]
            ? `<your INVENTORY_API_${name.toUpperCase()}>`
            : 'demo';
      io.stdout.write(
        `Point the worker at it with:\n  INVENTORY_BASE_URL=${sandbox.url} INVENTORY_ACCOUNT=${sandbox.account} ` +
          `INVENTORY_API_KEY=${shown(o.key, 'key')} INVENTORY_API_SECRET=${shown(o.secret, 'secret')}${total}\n`,
      );
      const store = o.store ? await startStore(o, sandbox) : undefined;
      if (store) io.stdout.write(store.banner);
      io.stdout.write('Stop with Ctrl-C.\n');
      await untilStopped(io.stop);
      await store?.close();
      await sandbox.close();
      done(ExitCode.ok);
    });
}

/** The sandbox store of `--store`, and what to print of it; when it cannot start (its port taken), the service is closed too. */
async function startStore(o: Options, sandbox: { close(): Promise<void> }) {
  const { sandboxStoreBanner, startSandboxStore } = await import('./sandbox-store.js');
  try {
    const store = await startSandboxStore({ host: o.host, port: o.storePort });
    return { banner: sandboxStoreBanner(store), close: () => store.close() };
  } catch (err) {
    await sandbox.close();
    throw err;
  }
}
