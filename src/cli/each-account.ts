import type { AccountConfig } from '../../config/accounts.js';
import type { CliIo } from '../app/cli-io.js';
import { writeJson } from '../app/command-context.js';
import { connectRedis } from '../app/connect-redis.js';
import type { Kind } from '../kinds/kind.js';
import { openStreamQueues, type StreamQueues } from '../queue/stream-queues.js';
import type { RedisConnection as Redis } from '../redis/connection.js';
import { describeFailure, ExitCode, type ExitCodeValue } from './exit-codes.js';
import { forAccount } from '../errors/error-hints.js';

/** What a command made of one account: its value and exit code, or the lines of the failure that stopped it. */
export type AccountOutcome<T> =
  { account: AccountConfig; code: ExitCodeValue; value: T } | { account: AccountConfig; code: ExitCodeValue; failure: string[] };

/** How bad an exit code is: Redis or the service unreachable, then wrong usage, then something failed, then ok. */
const SEVERITY: Record<ExitCodeValue, number> = {
  [ExitCode.ok]: 0,
  [ExitCode.someFailed]: 1,
  [ExitCode.usage]: 2,
  [ExitCode.unreachable]: 3,
};

/** The worst of the accounts' exit codes (ok when there is none). */
export function worstCode(codes: readonly ExitCodeValue[]): ExitCodeValue {
  return codes.reduce<ExitCodeValue>((worst, c) => (SEVERITY[c] > SEVERITY[worst] ? c : worst), ExitCode.ok);
}

/** The heading of an account's part of a command's text, with several accounts. */
export function accountHeading(a: AccountConfig): string {
  return `=== account ${a.name} (prefix ${a.config.redis.prefix}) ===\n`;
}

/**
 * Runs `run` for each account in turn. One account: exactly as the command runs without ACCOUNTS_FILE (a failure
 * ends the command). Several: a failure of one account (its service unreachable...) is that account's outcome, said on
 * stderr naming it, and the others go on.
 */
export async function runEachAccount<T>(
  io: CliIo,
  accounts: readonly AccountConfig[],
  run: (a: AccountConfig) => Promise<{ value: T; code: ExitCodeValue }>,
  o: { inFlight?: number; several?: boolean } = {},
): Promise<Array<AccountOutcome<T>>> {
  if (accounts.length === 1 && !o.several) return [{ account: accounts[0]!, ...(await run(accounts[0]!)) }];
  const out: Array<AccountOutcome<T>> = new Array(accounts.length);
  let next = 0;
  // `inFlight` accounts at a time (one by default), each outcome in its account's place.
  const lane = async () => {
    for (let i = next++; i < accounts.length; i = next++) {
      const account = accounts[i]!;
      try {
        out[i] = { account, ...(await run(account)) };
      } catch (err) {
        const { code, lines } = describeFailure(err);
        for (const line of lines) io.stderr.write(`account ${account.name}: ${line}\n`);
        out[i] = { account, code, failure: lines };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(o.inFlight ?? 1, accounts.length)) }, lane));
  return out;
}

/**
 * Writes the outcomes: one account as the command always wrote it (`text` or `json` of its value); several, in text,
 * a heading per account then its text (or its failure), and in JSON an array of objects, one per account, each with
 * `account` first. Answers the worst exit code.
 */
export function writeOutcomes<T>(
  io: CliIo,
  outcomes: ReadonlyArray<AccountOutcome<T>>,
  o: {
    json?: boolean;
    text: (value: T) => string;
    /** One account's JSON, as the command always wrote it. */
    toJson: (value: T) => unknown;
    /** An account's object among several (after its `account`); default: toJson's object. */
    accountJson?: (value: T) => Record<string, unknown>;
    /** Written as several accounts' (a heading each, a JSON array) even when there is one: a part of many listed. */
    several?: boolean;
  },
): ExitCodeValue {
  const accountJson = o.accountJson ?? ((v: T) => ({ ...(o.toJson(v) as Record<string, unknown>) }));
  if (outcomes.length === 1 && 'value' in outcomes[0]! && !o.several) {
    const only = outcomes[0];
    if (o.json) writeJson(io, o.toJson(only.value));
    else io.stdout.write(o.text(only.value));
    return only.code;
  }
  if (o.json)
    writeJson(
      io,
      outcomes.map((r) => ({ account: r.account.name, ...('value' in r ? accountJson(r.value) : { error: r.failure }) })),
    );
  else
    io.stdout.write(
      outcomes
        // Each account's commands carry its --account: several accounts, so a command of one needs it.
        .map(
          (r) =>
            accountHeading(r.account) +
            ('value' in r ? forAccount(o.text(r.value), r.account.name) : `${r.failure.map((l) => `${l}\n`).join('')}`),
        )
        .join('\n'),
    );
  return worstCode(outcomes.map((r) => r.code));
}

/**
 * Runs `fn` with each account's stream queues over one Redis connection (the deployment's Redis is every account's;
 * `o.inFlight` accounts at a time), closing each account's queues after it and the connection at the end.
 */
export async function withAccountQueues<T>(
  io: CliIo,
  accounts: readonly AccountConfig[],
  kinds: readonly Kind[],
  fn: (queues: StreamQueues, redis: Redis, a: AccountConfig) => Promise<{ value: T; code: ExitCodeValue }>,
  o: { inFlight?: number; several?: boolean } = {},
): Promise<Array<AccountOutcome<T>>> {
  const redis = await connectRedis(accounts[0]!.config.redis);
  try {
    return await runEachAccount(
      io,
      accounts,
      async (a) => {
        const queues = openStreamQueues(redis, a.config.redis.prefix, kinds);
        try {
          return await fn(queues, redis, a);
        } finally {
          await queues.close();
        }
      },
      o,
    );
  } finally {
    redis.disconnect();
  }
}
