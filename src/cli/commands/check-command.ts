import { Command } from 'commander';
import type { CliIo } from '../../app/cli-io.js';
import { writeJson } from '../../app/command-context.js';
import { describeRedis } from '../../redis/connection.js';
import type { CommandResult } from '../command-result.js';
import { withStore } from '../check-verdict.js';
import { renderCheck } from '../render-check.js';
import { UsageError, type ExitCodeValue } from '../exit-codes.js';
import { kindOf } from '../../records/records.js';
import type { Kind } from '../../kinds/kind.js';

/**
 * `check [--json]`: reads only (the service, Redis, the feed's first pages without moving a cursor) and lists every
 * product and facility the feed names that the account lacks. Exit 0 ready, 1 gaps found, 3 something could not
 * be reached or refused (Redis unreachable ends it at once, as for every command).
 */
export function checkCommand(io: CliIo, done: CommandResult, kinds: readonly Kind[]): Command {
  return new Command('check')
    .description(
      'reads only: the service (account, credentials, facilities, products, rate-limit headers), Redis, ' +
        'the feed (without moving a cursor) and every facility or product the feed names that the account lacks; ' +
        'exit 0 ready, 1 gaps, 3 unreachable',
    )
    .option('--json', 'machine-readable output')
    .option(
      '--register-webhooks',
      "with a store source (SHOPIFY_STORE_URL): creates the store's missing webhook subscriptions (orders/create, " +
        'orders/updated, orders/cancelled, refunds/create) at INGEST_PUBLIC_URL',
    )
    .action(async (o: { json?: boolean; registerWebhooks?: boolean }) => {
      const [{ openApp }, { runCheck }] = await Promise.all([import('../../app/app-context.js'), import('../../ops/check/run-check.js')]);
      // No probe: a refusing service is a finding of check, not a reason to stop before the rest is read.
      const app = await openApp(io, { kinds, needs: { service: true }, logTo: io.stderr, probe: false });
      try {
        const { deps, config } = app;
        const service = config.service!;
        const report = await runCheck({
          client: deps.client,
          catalog: deps.catalog,
          redis: deps.redis,
          keys: deps.keys,
          queues: deps.queues,
          service: { baseUrl: service.baseUrl, budgets: service.budgets },
          redisAt: describeRedis(config.redis),
          feed:
            deps.upstream && config.upstream
              ? { url: config.upstream.url, upstream: deps.upstream, pageSize: config.jobs.feedPageSize }
              : undefined,
          kinds: deps.queues.streams().map((s) => kindOf(kinds, s)),
          signal: io.stop,
        });
        if (o.registerWebhooks && !config.ingest.publicUrl)
          throw new UsageError('--register-webhooks: INGEST_PUBLIC_URL is required: the origin where the store reaches the receiver');
        const { checkStore } = await import('../../app/check-store.js');
        const store = await checkStore({ config, logger: app.logger, catalog: deps.catalog, kinds, register: o.registerWebhooks });
        if (o.registerWebhooks && !store) throw new UsageError('--register-webhooks: there is no store source (SHOPIFY_STORE_URL)');
        // One verdict over the account, the feed and the store: the heading, the closing line, --json and the exit code.
        const full = withStore(report, store);
        app.logger.info({ verdict: full.verdict, gaps: report.gaps?.length ?? null, serviceCalls: report.serviceCalls }, 'check done');
        if (o.json) writeJson(io, full);
        else io.stdout.write(renderCheck(full, { streams: kinds.map((k) => k.stream) }));
        done(full.exitCode as ExitCodeValue);
      } finally {
        await app.close();
      }
    });
}
