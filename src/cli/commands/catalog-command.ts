import { Command } from 'commander';
import type { CliIo } from '../../app/cli-io.js';
import { writeJson } from '../../app/command-context.js';
import { ExitCode } from '../exit-codes.js';
import type { CommandResult } from '../command-result.js';
import type { Kind } from '../../kinds/kind.js';
import type { Released } from '../../queue/wait/wait-look.js';
import { recordsText, type WaitReport } from '../../queue/wait/wait-report.js';
import { refWords } from '../../queue/wait/reference.js';

/** What a look at the catalog did now: the records it released, and those that still wait. */
export interface LookNow {
  released: Released[];
  waiting: WaitReport;
}

/**
 * Reads the catalog from the service now (and MAPPING_FILE, when its file changed), releases the records that waited
 * for what exists now, and answers what still waits: `catalog refresh`, and `jobs retry` of a waiting record.
 */
export async function lookNow(io: CliIo, kinds: readonly Kind[]): Promise<LookNow> {
  const [{ openApp }, { lookAtWaits }, { readWaits }] = await Promise.all([
    import('../../app/app-context.js'),
    import('../../queue/wait/wait-look.js'),
    import('../../queue/wait/wait-report.js'),
  ]);
  const app = await openApp(io, { kinds, needs: { service: true }, logTo: io.stderr });
  try {
    const { deps } = app;
    const streams = deps.queues.streams() as string[];
    const queues = { get: (s: string) => (streams.includes(s) ? deps.queues.get(s as never) : undefined) };
    const look = { redis: deps.redis, keys: deps.keys, catalog: deps.catalog, queues, logger: app.logger, lookMs: 0 };
    const { released } = await lookAtWaits(look, true);
    return { released, waiting: await readWaits(deps.redis, deps.keys) };
  } finally {
    await app.close();
  }
}

/** The look's outcome for a person. */
export function renderLookNow(r: LookNow): string {
  const out = r.released.map((g) => `Released ${recordsText(g.stream, g.jobs)} that waited for ${refWords(g.ref)}: it exists now.`);
  if (r.waiting.groups.length) out.push('Still waiting (the service lacks it):', ...r.waiting.groups.map((g) => `  ${g.text}`));
  if (r.waiting.more) out.push(`  and ${r.waiting.more} more groups`);
  if (!out.length) out.push('No record waits for a product or facility.');
  return `${out.join('\n')}\n`;
}

/** `catalog refresh`: the account's products and facilities read again now, and the waiting records they release. */
export function catalogCommand(io: CliIo, done: CommandResult, kinds: readonly Kind[]): Command {
  const catalog = new Command('catalog').description("the account's products and facilities, as the program knows them");
  catalog
    .command('refresh')
    .description(
      'read the products and facilities from the service now (two collection GETs) and MAPPING_FILE if it changed: ' +
        'the records that wait for one that exists now go on at once',
    )
    .option('--json', 'machine-readable output')
    .action(async (o: { json?: boolean }) => {
      const r = await lookNow(io, kinds);
      if (o.json) writeJson(io, r);
      else io.stdout.write(`Catalog read from the service.\n${renderLookNow(r)}`);
      done(ExitCode.ok);
    });
  return catalog;
}
