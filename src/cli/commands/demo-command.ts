import { Command } from 'commander';
import { defaults } from '../../../config/defaults.js';
import type { CliIo } from '../../app/cli-io.js';
import type { CommandResult } from '../command-result.js';
import { sandboxDefaults, type SandboxProfile } from '../../sandbox/sandbox-options.js';
import { port, sandboxProfile } from './options.js';
import type { Kind } from '../../kinds/kind.js';

/** `demo [--exit] [--dashboard-port P] [--profile observed|spec] [--store]`: the whole job on embedded defaults. */
export function demoCommand(io: CliIo, done: CommandResult, kinds: readonly Kind[]): Command {
  return new Command('demo')
    .description('the main job on embedded defaults: sandbox service, bundled upstream feed, Redis, worker, dashboard')
    .option('--exit', 'exit after the summary (by default the worker and dashboard stay up until Ctrl-C)')
    .option('--dashboard-port <port>', 'dashboard port (a free one when taken)', port, defaults.dashboardPort)
    .option(
      '--profile <profile>',
      'how the sandbox answers: observed (as the real service is seen to) or spec',
      sandboxProfile,
      sandboxDefaults.profile,
    )
    .option(
      '--store',
      'also a sandbox Shopify store feeding the service: its webhooks (some lost, late, twice) and its pull (docs/shopify.md)',
    )
    .action(async (o: { exit?: boolean; dashboardPort: number; profile: SandboxProfile; store?: boolean }) => {
      const { runDemo } = await import('../../demo/run-demo.js');
      done(
        await runDemo(io, { exit: Boolean(o.exit), dashboardPort: o.dashboardPort, profile: o.profile, store: Boolean(o.store) }, kinds),
      );
    });
}
