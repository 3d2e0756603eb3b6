import { Command } from 'commander';
import { findRecord } from '../../ops/find.js';
import type { CliIo } from '../../app/cli-io.js';
import { loadConfig, withQueues, writeJson } from '../../app/command-context.js';
import { ExitCode } from '../exit-codes.js';
import type { CommandResult } from '../command-result.js';
import { renderFind } from '../render-find.js';
import type { Kind } from '../../kinds/kind.js';

/** `find <key> [--json]`: every job of an orderId, countId or productId, and the service entities it made. */
export function findCommand(io: CliIo, done: CommandResult, kinds: readonly Kind[]): Command {
  return new Command('find')
    .description(
      'any orderId, countId or productId: its jobs (each version, state, attempts, calls, errors) and the service entities it made',
    )
    .argument('<key>', 'orderId, countId or productId (of a BOM)')
    .option('--json', 'machine-readable output')
    .action(async (key: string, o: { json?: boolean }) => {
      const config = loadConfig(io, kinds);
      const result = await withQueues(config, kinds, (queues, redis) =>
        findRecord(redis, queues, key, undefined, { mapping: config.mapping, kinds }),
      );
      if (!result.found) {
        if (o.json) writeJson(io, result);
        io.stderr.write(
          `Nothing known of ${key} under prefix ${config.redis.prefix}: ` +
            'no job (completed ones are kept 7 days, failed ones until retried or removed) and no progress.\n',
        );
        return done(ExitCode.someFailed);
      }
      if (o.json) writeJson(io, result);
      else io.stdout.write(renderFind(result));
      done(ExitCode.ok);
    });
}
