import { Command, Option } from 'commander';
import type { StreamName } from '../../records/stream-name.js';
import type { CliIo } from '../../app/cli-io.js';
import { loadAccounts, loadConfig, withQueues, writeJson } from '../../app/command-context.js';
import { withAccountQueues, writeOutcomes } from '../each-account.js';
import { ExitCode, UsageError } from '../exit-codes.js';
import { DEFAULT_BATCH_LIMIT, DEFAULT_LIST_LIMIT, JOB_STATES, listJobs, showJob, type JobStateName } from '../../ops/job-inspect.js';
import { retryAllFailed, retryJobIds } from '../../ops/job-retry.js';
import { renderJobList, renderJobStory, renderRetry } from '../render-jobs.js';
import type { CommandResult } from '../command-result.js';
import { positive } from './options.js';
import { lookNow, renderLookNow } from './catalog-command.js';
import type { Kind } from '../../kinds/kind.js';

/** `jobs list` (every account of ACCOUNTS_FILE, or `--account`'s), `jobs show`, `jobs retry` (one account). */
export function jobsCommand(io: CliIo, done: CommandResult, kinds: readonly Kind[]): Command {
  const streamOption = () => new Option('--stream <stream...>', 'only these streams').choices(kinds.map((k) => k.stream));
  const jobs = new Command('jobs').description('inspect and retry jobs');

  jobs
    .command('list')
    .description('jobs and import batches by state (default: failed, active, waiting, delayed)')
    .addOption(new Option('--state <state...>', 'only these states').choices([...JOB_STATES, 'all']))
    .addOption(streamOption())
    .option('--limit <n>', 'most jobs per stream and state', positive, DEFAULT_LIST_LIMIT)
    .option('--batch-limit <n>', 'most import batches per stream and state (each holds up to 1,000 records)', positive, DEFAULT_BATCH_LIMIT)
    .option('--json', 'machine-readable output')
    .action(async (o: { state?: string[]; stream?: StreamName[]; limit: number; batchLimit: number; json?: boolean }) => {
      const states = !o.state || o.state.includes('all') ? (o.state ? JOB_STATES : undefined) : (o.state as JobStateName[]);
      // Every account of ACCOUNTS_FILE (a heading, or an object with `account`, each), or --account's.
      const outcomes = await withAccountQueues(io, loadAccounts(io, kinds), kinds, async (q, _redis, { config }) => ({
        value: {
          prefix: config.redis.prefix,
          jobs: await listJobs(q, { states, streams: o.stream, limit: o.limit, batchLimit: o.batchLimit }),
        },
        code: ExitCode.ok,
      }));
      done(writeOutcomes(io, outcomes, { json: o.json, text: (v) => renderJobList(v.jobs), toJson: (v) => v }));
    });

  jobs
    .command('show <id>')
    .description("one job's whole story: record (or import batch), attempts, API calls, the error and what to do")
    .option('--json', 'machine-readable output')
    .action(async (id: string, o: { json?: boolean }) => {
      const config = loadConfig(io, kinds);
      const story = await withQueues(config, kinds, (q) => showJob(q, id));
      if (!story) {
        io.stderr.write(`No job ${id} under prefix ${config.redis.prefix}. List them with: inventory-sync jobs list\n`);
        return done(ExitCode.someFailed);
      }
      if (o.json) writeJson(io, story);
      else io.stdout.write(renderJobStory(story));
      done(ExitCode.ok);
    });

  jobs
    .command('retry [ids...]')
    .description('put failed jobs and import batches back to work: by id, or --all-failed [--stream S]')
    .option('--all-failed', 'every failed job and import batch (of --stream, when given)')
    .addOption(streamOption())
    .option('--json', 'machine-readable output')
    .action(async (ids: string[], o: { allFailed?: boolean; stream?: StreamName[]; json?: boolean }) => {
      if (o.allFailed && ids.length) throw new UsageError('give job ids or --all-failed, not both');
      if (!o.allFailed && !ids.length) throw new UsageError('give the ids of the jobs to retry, or --all-failed [--stream S]');
      if (o.stream && !o.allFailed) throw new UsageError('--stream goes with --all-failed');
      const config = loadConfig(io, kinds);
      const outcome = await withQueues(config, kinds, (q) =>
        o.allFailed ? retryAllFailed(q, { streams: o.stream }) : retryJobIds(q, ids),
      );
      // A waiting record has nothing to retry: the catalog is looked at now, which releases it if what it waits for exists.
      const look = outcome.waiting.length ? await lookNow(io, kinds) : undefined;
      if (o.json) writeJson(io, look ? { ...outcome, look } : outcome);
      else io.stdout.write(renderRetry(outcome) + (look ? renderLookNow(look) : ''));
      done(outcome.refused.length ? ExitCode.someFailed : ExitCode.ok);
    });

  return jobs;
}
