import { plural } from '../../ops/state-words.js';
import { Command, Option } from 'commander';
import type { CliIo } from '../../app/cli-io.js';
import { loadConfig, withQueues, writeJson } from '../../app/command-context.js';
import { resumeStreams, type ResumeResult } from '../../ops/resume-streams.js';
import type { StreamName } from '../../records/stream-name.js';
import { ExitCode } from '../exit-codes.js';
import type { CommandResult } from '../command-result.js';
import type { Kind } from '../../kinds/kind.js';

function render(results: ResumeResult[]): string {
  const lines = results.map((r) =>
    r.wasPaused
      ? `${r.stream}: resumed (paused since ${r.since ?? '?'}: ${r.reason ?? 'no reason recorded'}); ` +
        `${plural(r.waiting, 'job')} run again from their progress` +
        (r.retried.length ? `, ${r.retried.length} of them failed by the same refusal before the pause and retried` : '')
      : `${r.stream}: was not paused; nothing to resume`,
  );
  return `${lines.join('\n')}\n`;
}

/** `resume [--stream S]... [--json]`: resumes streams that the circuit breaker paused (every stream by default). */
export function resumeCommand(io: CliIo, done: CommandResult, kinds: readonly Kind[]): Command {
  return new Command('resume')
    .description('resume streams that the circuit breaker paused (the account refused every job): their waiting jobs run again')
    .addOption(new Option('--stream <stream...>', 'only these streams (default: every stream)').choices(kinds.map((k) => k.stream)))
    .option('--json', 'machine-readable output')
    .action(async (o: { stream?: StreamName[]; json?: boolean }) => {
      const config = loadConfig(io, kinds);
      const results = await withQueues(config, kinds, (queues) => resumeStreams(queues, o.stream ?? queues.names));
      if (o.json) writeJson(io, { resumed: results });
      else io.stdout.write(render(results));
      done(ExitCode.ok);
    });
}
