import { Command, Option } from 'commander';
import type { StreamName } from '../../records/stream-name.js';
import type { CliIo } from '../../app/cli-io.js';
import { loadConfig, withQueues, writeJson } from '../../app/command-context.js';
import { ExitCode } from '../exit-codes.js';
import type { CommandResult } from '../command-result.js';
import { auditCsv, auditNdjson, auditTable } from '../render-audit.js';
import { parseAuditTime } from '../audit-time.js';
import type { Kind } from '../../kinds/kind.js';

interface AuditFlags {
  since?: string;
  until?: string;
  stream?: StreamName[];
  format?: 'csv' | 'ndjson';
  json?: boolean;
}

/** `audit [--since T] [--until T] [--stream S]... [--format csv|ndjson] [--json]`: every write made to the service. */
export function auditCommand(io: CliIo, done: CommandResult, kinds: readonly Kind[]): Command {
  return new Command('audit')
    .description(
      'every write the program made to the service (time, stream, key, job, method, path, status, entity URL), from the jobs it keeps',
    )
    .option('--since <time>', 'from this time: ISO date or date-time, or an age (30m, 24h, 7d)')
    .option('--until <time>', 'before this time (same forms)')
    .addOption(new Option('--stream <stream...>', 'only these streams').choices(kinds.map((k) => k.stream)))
    .addOption(new Option('--format <format>', 'csv or ndjson instead of a table').choices(['csv', 'ndjson']))
    .option('--json', 'machine-readable output (one JSON array)')
    .action(async (o: AuditFlags) => {
      const since = o.since === undefined ? undefined : parseAuditTime('--since', o.since);
      const until = o.until === undefined ? undefined : parseAuditTime('--until', o.until);
      const { auditWrites } = await import('../../ops/audit.js');
      const config = loadConfig(io, kinds);
      const rows = await withQueues(config, kinds, (queues) => auditWrites(queues, kinds, { since, until, streams: o.stream }));
      if (o.json) writeJson(io, rows);
      else if (o.format === 'csv') io.stdout.write(auditCsv(rows));
      else if (o.format === 'ndjson') io.stdout.write(auditNdjson(rows));
      else io.stdout.write(auditTable(rows));
      done(ExitCode.ok);
    });
}
