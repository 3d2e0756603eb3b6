import { Command, Option } from 'commander';
import type { Kind } from '../../kinds/kind.js';
import { isLoopback } from '../../net/loopback.js';
import type { CliIo } from '../../app/cli-io.js';
import { loadConfig } from '../../app/command-context.js';
import { ExitCode, UsageError } from '../exit-codes.js';
import type { CommandResult } from '../command-result.js';
import { untilStopped } from '../until-stopped.js';
import { sandboxDefaults, WINDOW_SHAPES, type SandboxProfile, type WindowShape } from '../../sandbox/sandbox-options.js';
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
}

/** `sandbox`: the embedded service, until SIGTERM/SIGINT. */
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
    .action(async (o: Options) => {
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
      const budgets = o.totalPerMinute
        ? { total: { limit: o.totalPerMinute, windowMs: 60_000 }, rateHeaders: o.rateHeaders, window: o.window }
        : undefined;
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
          `INVENTORY_API_KEY=${shown(o.key, 'key')} INVENTORY_API_SECRET=${shown(o.secret, 'secret')}${total}\nStop with Ctrl-C.\n`,
      );
      await untilStopped(io.stop);
      await sandbox.close();
      done(ExitCode.ok);
    });
}
