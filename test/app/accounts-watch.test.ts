import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../config/read-config.js';
import { programKinds } from '../../jobs/kinds.js';
import {
  readWatchedAccounts,
  watchAccounts,
  type AccountsChange,
  type AccountsSource,
  type AccountsWatch,
} from '../../src/app/accounts-watch.js';
import { createLogger } from '../../src/log/logger.js';
import { captureOut } from '../helpers/out-stream.js';

/** The file's accounts, each with its own settings. */
type Doc = Record<string, Record<string, string>>;

const names = (accounts: ReadonlyArray<{ name: string }>) => accounts.map((a) => a.name);
const summary = (c: AccountsChange) => ({
  accounts: names(c.accounts),
  added: names(c.added),
  removed: names(c.removed),
  changed: names(c.changed),
});

describe('watching ACCOUNTS_FILE', () => {
  let dir: string;
  let source: AccountsSource;
  let log: ReturnType<typeof captureOut>;
  let watch: AccountsWatch | undefined;
  /** Written whole (a new file renamed over the old), with a size of its own so that its stamp changes. */
  let writes = 0;
  const write = (doc: Doc | string) => {
    const text = typeof doc === 'string' ? doc : JSON.stringify({ accounts: doc }) + ' '.repeat(++writes);
    writeFileSync(`${source.file}.tmp`, text);
    renameSync(`${source.file}.tmp`, source.file);
  };
  const start = (everyMs = 60_000) => {
    watch = watchAccounts(source, readWatchedAccounts(source), {
      everyMs,
      logger: createLogger({ level: 'info', destination: log.stream }),
      meanwhile: 'the accounts stay as they were',
    });
    return watch;
  };
  const lines = () => log.lines().map((l) => JSON.parse(l) as { level: number; msg: string });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'isync-watch-'));
    source = { file: join(dir, 'accounts.json'), env: { QUEUE_PREFIX: 'isync' }, kinds: programKinds, needs: {} };
    log = captureOut(false);
    write({ acme: { ORDER_POLL_SECONDS: '5' }, globex: {} });
  });
  afterEach(async () => {
    await watch?.close();
    watch = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads each account with its configuration and its settings in a stable order', () => {
    write({ acme: { ORDER_POLL_SECONDS: '5', CATALOG_REFRESH_SECONDS: '0' } });
    const [acme] = readWatchedAccounts(source).accounts;
    expect(acme!.config.redis.prefix).toBe('{isync-acme}');
    write({ acme: { CATALOG_REFRESH_SECONDS: '0', ORDER_POLL_SECONDS: '5' } });
    expect(readWatchedAccounts(source).accounts[0]!.settings).toBe(acme!.settings);
  });

  it('hands a subscriber what was added, removed and changed since it last took the file', async () => {
    const changes: AccountsChange[] = [];
    const { look } = start().subscribe((c) => void changes.push(c));
    write({ acme: { ORDER_POLL_SECONDS: '7' }, initech: {} });
    await look();
    expect(changes.map(summary)).toEqual([{ accounts: ['acme', 'initech'], added: ['initech'], removed: ['globex'], changed: ['acme'] }]);
    expect(changes[0]!.changed[0]!.settings).toBe('[["ORDER_POLL_SECONDS","7"]]');
    // Looked at again with no change of the file: nothing is handed.
    await look();
    expect(changes).toHaveLength(1);
  });

  it('changes nothing when the file turns wrong, logging each problem on a line of its own', async () => {
    const changes: AccountsChange[] = [];
    const { look } = start().subscribe((c) => void changes.push(c));
    write('{"accounts": ');
    await look();
    write({ acme: { REDIS_URL: 'redis://elsewhere:6379' }, 'Bad Name': {} });
    await look();
    expect(changes).toEqual([]);
    const problems = lines().filter((l) => l.msg.endsWith('; the accounts stay as they were'));
    expect(problems.map((l) => l.level)).toEqual([50, 50, 50]);
    expect(problems[0]!.msg).toMatch(/is not valid JSON/);
    expect(problems[1]!.msg).toMatch(/account "acme": REDIS_URL: is the deployment's/);
    expect(problems[2]!.msg).toMatch(/account "Bad Name"/);
    // Fixed with one account fewer: the change is counted from what the subscriber had.
    write({ acme: { ORDER_POLL_SECONDS: '5' } });
    await look();
    expect(changes.map(summary)).toEqual([{ accounts: ['acme'], added: [], removed: ['globex'], changed: [] }]);
  });

  it('lets a subscriber refuse a change: it keeps what it had, and the others take it', async () => {
    const taken: AccountsChange[] = [];
    const w = start();
    const picky = w.subscribe((c) => {
      if (c.added.length > 0) throw new ConfigError([`account "${c.added[0]!.name}": not for me`]);
    }, 'the picky one keeps its accounts');
    w.subscribe((c) => void taken.push(c));
    write({ acme: { ORDER_POLL_SECONDS: '5' }, globex: {}, initech: {} });
    await picky.look();
    expect(lines().some((l) => l.msg === 'account "initech": not for me; the picky one keeps its accounts')).toBe(true);
    expect(taken.map(summary)).toEqual([{ accounts: ['acme', 'globex', 'initech'], added: ['initech'], removed: [], changed: [] }]);
  });

  it('hands one change at a time to a subscriber still taking the last, the newest once it is done', async () => {
    const seen: string[][] = [];
    let release = () => undefined as void;
    const { look } = start().subscribe(async (c) => {
      seen.push(names(c.accounts));
      if (seen.length === 1) await new Promise<void>((r) => (release = r));
    });
    write({ acme: {} });
    const first = look();
    write({ globex: {} });
    const second = look();
    write({ initech: {} });
    void look();
    expect(seen).toEqual([['acme']]);
    release();
    await Promise.all([first, second]);
    expect(seen).toEqual([['acme'], ['initech']]);
  });

  it('looks by itself every everyMs', async () => {
    const changes: AccountsChange[] = [];
    start(50).subscribe((c) => void changes.push(c));
    write({ acme: { ORDER_POLL_SECONDS: '5' } });
    await expect.poll(() => changes.length, { timeout: 2_000 }).toBe(1);
    expect(summary(changes[0]!)).toMatchObject({ removed: ['globex'] });
  });
});
