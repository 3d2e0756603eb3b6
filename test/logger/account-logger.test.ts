import { describe, expect, it } from 'vitest';
import { accountLogger, addSecrets, createLogger } from '../../src/log/logger.js';
import { logRepeated } from '../../src/log/log-throttle.js';
import { captureOut } from '../helpers/out-stream.js';

const ACCOUNT_TOKEN = 'acme-upstream-token-5d1e';
const ROTATED = 'acme-rotated-token-9c0b';

/** The process's logger (service lines, JSON) and two accounts' loggers of it, each line parsed. */
function world(accountLevel = 'info') {
  const out = captureOut(false);
  const process = createLogger({ level: 'info', destination: out.stream });
  const acme = accountLogger(process, 'acme', accountLevel);
  const globex = accountLogger(process, 'globex', 'info');
  const lines = () => out.lines().map((l) => JSON.parse(l) as Record<string, unknown>);
  return { out, process, acme, globex, lines };
}

describe('an account logger in a process of many accounts', () => {
  it("writes where the process's logger writes, each line naming its account", () => {
    const w = world();
    w.process.info('process line');
    w.acme.info({ stream: 'orders' }, 'acme line');
    w.globex.info('globex line');
    expect(w.lines().map((l) => [l.account, l.msg])).toEqual([
      [undefined, 'process line'],
      ['acme', 'acme line'],
      ['globex', 'globex line'],
    ]);
    expect(w.lines()[1]).toMatchObject({ stream: 'orders', level: 30 });
  });

  it("keeps the account's own level, whatever the process's", () => {
    const w = world('warn');
    w.acme.info('not written');
    w.acme.warn('written');
    w.process.info('the process still at info');
    expect(w.lines().map((l) => l.msg)).toEqual(['written', 'the process still at info']);
  });

  it("redacts the account's secrets, taught to the process's logger or to its own (a token read again)", () => {
    const w = world();
    addSecrets(w.process, [ACCOUNT_TOKEN]);
    w.acme.info({ said: ACCOUNT_TOKEN }, `token ${ACCOUNT_TOKEN}`);
    addSecrets(w.acme, [ROTATED]);
    w.acme.warn(`rotated ${ROTATED}`);
    w.globex.info({ said: `${ACCOUNT_TOKEN} ${ROTATED}` }, 'another account');
    const text = w.out.text();
    for (const secret of [ACCOUNT_TOKEN, ROTATED]) expect(text).not.toContain(secret);
    expect(text.match(/\[REDACTED\]/g)?.length).toBe(5);
  });

  it("holds back one account's repeated error, not another's", () => {
    const w = world();
    for (let i = 0; i < 3; i++) logRepeated(w.acme, 'error', 'redis:OOM', {}, 'Redis refuses writes');
    logRepeated(w.globex, 'error', 'redis:OOM', {}, 'Redis refuses writes');
    logRepeated(w.process, 'error', 'redis:OOM', {}, 'Redis refuses writes');
    expect(w.lines().map((l) => l.account ?? 'process')).toEqual(['acme', 'globex', 'process']);
  });
});
