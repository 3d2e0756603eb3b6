import { Command, Option } from 'commander';
import type { StreamName } from '../../records/stream-name.js';
import type { CliIo } from '../../app/cli-io.js';
import { loadAccounts } from '../../app/command-context.js';
import { ExitCode } from '../exit-codes.js';
import { withAccountQueues, worstCode, writeOutcomes } from '../each-account.js';
import type { CommandResult } from '../command-result.js';
import { auditCsv, auditNdjson, auditTable } from '../render-audit.js';
import { parseAuditTime } from '../audit-time.js';
import type { Kind } from '../../kinds/kind.js';
import type { AuditRow } from '../../ops/audit.js';

interface AuditFlags {
  since?: string;
  until?: string;
  stream?: StreamName[];
  format?: 'csv' | 'ndjson';
  json?: boolean;
}

/**
 * `audit [--since T] [--until T] [--stream S]... [--format csv|ndjson] [--json]`: every write made to the service, by
 * every account of ACCOUNTS_FILE (or `--account`'s); CSV and NDJSON rows then name their account.
 */
export function auditCommand(io: CliIo, done: CommandResult, kinds: readonly Kind[]): Command {
  return new Command('audit')
    .description(
      'every write the program made to the service (time, stream, key, job, method, path, status, entity URL), from the jobs it keeps',
    )
    .option('--since <time>', 'from this time: ISO date or date-time, or an age (30m, 24h, 7d)')
    .option('--until <time>', 'before this time (same forms)')
    .addOption(new Option('--stream <stream...>', 'only these streams').choices(kinds.map((k) => k.stream)))
    .addOption(new Option('--format <format>', 'csv or ndjson instead of a table').choices(['csv', 'ndjson']))
    .option('--json', 'machine-readable output (one JSON array: of the writes; with several accounts, of an object per account)')
    .action(async (o: AuditFlags) => {
      const since = o.since === undefined ? undefined : parseAuditTime('--since', o.since);
      const until = o.until === undefined ? undefined : parseAuditTime('--until', o.until);
      const { auditWrites } = await import('../../ops/audit.js');
      const accounts = loadAccounts(io, kinds);
      const outcomes = await withAccountQueues(io, accounts, kinds, async (queues) => ({
        value: await auditWrites(queues, kinds, { since, until, streams: o.stream }),
        code: ExitCode.ok,
      }));
      // CSV and NDJSON stay one table with several accounts: each row names its account.
      if (o.format && !o.json && outcomes.length > 1) {
        const rows = outcomes.flatMap((r) => ('value' in r ? r.value.map((row) => ({ account: r.account.name, ...row })) : []));
        io.stdout.write(o.format === 'csv' ? auditCsv(rows, { account: true }) : auditNdjson(rows));
        return done(worstCode(outcomes.map((r) => r.code)));
      }
      const text = o.format === 'csv' ? (rows: AuditRow[]) => auditCsv(rows) : o.format === 'ndjson' ? auditNdjson : auditTable;
      // --json: one array of writes; with several accounts, an object per account with its `writes`.
      done(writeOutcomes(io, outcomes, { json: o.json, text, toJson: (writes) => writes, accountJson: (writes) => ({ writes }) }));
    });
}
