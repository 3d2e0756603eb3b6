/**
 * What the suite needs from the machine, found, or installed with Debian's packages when this runs as root
 * (as CI does); when something truly cannot be had, the run stops before any test with one line per missing
 * thing and how to get it. Every global setup asks for all it needs, so one stop lists everything missing.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { safeRedisUrl } from '../../src/redis/connection.js';
import { findOnPath, waitForPing } from '../../src/redis/embedded-server.js';

/**
 * `redis`: a Redis answering at REDIS_URL, or redis-server to start one; `redis-cluster`: redis-server and redis-cli;
 * `redis-server`: redis-server to start servers of a test's own (TLS, Sentinel: `redis-server --sentinel`);
 * `openssl`: to make a CA and a certificate for them.
 */
export type Need = 'redis' | 'redis-cluster' | 'redis-server' | 'openssl' | 'chromium' | 'prometheus';

export interface Found {
  /** The Chromium (or Chrome) to drive, when asked for. */
  chromium?: string;
  /** promtool and the Prometheus server, when asked for (`prometheus`). */
  promtool?: string;
  prometheus?: string;
}

/** The Redis the suite uses unless told otherwise. */
export const testRedisUrl = (): string => process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const CHROMIUM_PLACES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/snap/bin/chromium',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
];

const INSTALL_CHROMIUM =
  '`sudo apt-get install chromium` (Debian/Ubuntu) or `brew install --cask chromium` (macOS), or set CHROMIUM_PATH to a Chromium or Chrome binary';
const INSTALL_REDIS = '`sudo apt-get install redis-server` (Debian/Ubuntu) or `brew install redis` (macOS)';

// Global setups of several projects run in one process: install at most once per run.
const memo = ((globalThis as Record<string, unknown>).__isyncPrerequisites ??= new Map<string, Promise<unknown>>()) as Map<
  string,
  Promise<unknown>
>;
function once<T>(key: string, fn: () => Promise<T>): Promise<T> {
  if (!memo.has(key)) memo.set(key, fn());
  return memo.get(key) as Promise<T>;
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Installs a Debian package when this is root on a machine with apt-get; answers why not otherwise (undefined: done).
 * `withoutRecommends`: not what it recommends (prometheus recommends exporters that would start services of their own).
 */
function aptInstall(pkg: string, o: { withoutRecommends?: boolean } = {}): Promise<string | undefined> {
  return once(`apt:${pkg}`, async () => {
    if (process.getuid?.() !== 0) return 'not root, so not installed';
    if (!findOnPath('apt-get')) return 'no apt-get here, so not installed';
    process.stderr.write(`prerequisites: installing Debian's ${pkg} package (apt-get install ${pkg})...\n`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const opts = { env, encoding: 'utf8' as const, timeout: 600_000 };
    // Another apt-get on the machine holds the lock for a while: wait for it rather than fail.
    const update = spawnSync('apt-get', ['-o', 'DPkg::Lock::Timeout=300', 'update', '-qq'], opts);
    const extra = o.withoutRecommends ? ['--no-install-recommends'] : [];
    const install =
      update.status === 0 ? spawnSync('apt-get', ['-o', 'DPkg::Lock::Timeout=300', 'install', '-y', '-qq', ...extra, pkg], opts) : update;
    if (install.status === 0) return undefined;
    const why = `${install.stderr ?? ''}${install.error?.message ?? ''}`.trim().split('\n').pop();
    return `apt-get install ${pkg} failed (${why || `exit ${install.status}`})`;
  });
}

/** Where `npx playwright-core install chromium` puts its Chromium (it may not be there). */
function playwrightChromium(): string {
  try {
    return chromium.executablePath();
  } catch {
    return '';
  }
}

async function findChromium(): Promise<{ path: string } | { missing: string }> {
  const given = process.env.CHROMIUM_PATH;
  if (given) {
    return isExecutableFile(given)
      ? { path: given }
      : {
          missing: `Chromium: CHROMIUM_PATH=${given} is not an executable file; point it at Chromium or Chrome, or unset it to look in the usual places`,
        };
  }
  const places = [
    ...CHROMIUM_PLACES,
    ...['chromium', 'chromium-browser', 'google-chrome'].map((c) => findOnPath(c) ?? ''),
    playwrightChromium(),
  ];
  const at = () => places.find((p) => p && isExecutableFile(p));
  let path = at();
  if (!path) {
    const notInstalled = await aptInstall('chromium');
    path = at();
    if (!path)
      return {
        missing: `Chromium: none in CHROMIUM_PATH or ${CHROMIUM_PLACES.slice(0, 2).join(', ')}... (${notInstalled ?? 'installed, yet not found'}); get it: ${INSTALL_CHROMIUM}`,
      };
  }
  const version = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 15_000 });
  if (version.status !== 0)
    return {
      missing: `Chromium: ${path} does not run (${(version.stderr || version.error?.message || '').trim().split('\n')[0]}); reinstall it: ${INSTALL_CHROMIUM}`,
    };
  return { path };
}

/** redis-server (and redis-cli) on PATH, installed when it can be; a missing line otherwise. */
async function redisBinaries(names: string[], why: string): Promise<string | undefined> {
  if (names.every((n) => findOnPath(n))) return undefined;
  const notInstalled = await aptInstall('redis-server'); // brings redis-tools (redis-cli) along
  const missing = names.filter((n) => !findOnPath(n));
  if (!missing.length) return undefined;
  return `Redis: ${why} ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not installed (${notInstalled ?? 'installed, yet not on PATH'}); get ${missing.length > 1 ? 'them' : 'it'}: ${INSTALL_REDIS}`;
}

async function check(need: Need, found: Found): Promise<string | undefined> {
  if (need === 'chromium') {
    const c = await once('chromium', findChromium);
    if ('path' in c) found.chromium = c.path;
    return 'missing' in c ? c.missing : undefined;
  }
  if (need === 'redis-cluster') return redisBinaries(['redis-server', 'redis-cli'], 'the Redis Cluster tests start their own cluster, and');
  if (need === 'redis-server') return redisBinaries(['redis-server'], 'the TLS and Sentinel tests start their own servers, and');
  if (need === 'openssl') return openssl();
  if (need === 'prometheus') return prometheus(found);
  const url = testRedisUrl();
  const answers = await once(`ping:${url}`, () =>
    waitForPing(url, 1000).then(
      () => true,
      () => false,
    ),
  );
  if (answers) return undefined;
  const line = await redisBinaries(
    ['redis-server'],
    `nothing answers at ${safeRedisUrl(url)} (REDIS_URL), so the suite starts its own, but`,
  );
  return line && `${line}, or set REDIS_URL to a Redis you have`;
}

/**
 * promtool and prometheus on PATH (Debian's `prometheus` package has both), installed when they can be; a missing line
 * otherwise. deploy/'s rules are checked and tested with promtool, and a real server scrapes a worker.
 */
async function prometheus(found: Found): Promise<string | undefined> {
  const names = ['promtool', 'prometheus'];
  if (!names.every((n) => findOnPath(n))) {
    const notInstalled = await aptInstall('prometheus', { withoutRecommends: true });
    const missing = names.filter((n) => !findOnPath(n));
    if (missing.length)
      return (
        `Prometheus: the deploy/ tests run ${missing.join(' and ')}, and ${missing.length > 1 ? 'they are' : 'it is'} not installed ` +
        `(${notInstalled ?? 'installed, yet not on PATH'}); get ${missing.length > 1 ? 'them' : 'it'}: \`sudo apt-get install prometheus\` ` +
        '(Debian/Ubuntu) or `brew install prometheus` (macOS)'
      );
  }
  found.promtool = findOnPath('promtool');
  found.prometheus = findOnPath('prometheus');
  return undefined;
}

/** openssl on PATH, installed when it can be; a missing line otherwise. */
async function openssl(): Promise<string | undefined> {
  if (findOnPath('openssl')) return undefined;
  const notInstalled = await aptInstall('openssl');
  if (findOnPath('openssl')) return undefined;
  return `openssl: the TLS tests make their own CA with it, and it is not installed (${notInstalled ?? 'installed, yet not on PATH'}); get it: \`sudo apt-get install openssl\` (Debian/Ubuntu) or \`brew install openssl\` (macOS)`;
}

/** Finds (or installs) everything in `needs`; stops the run with one line per missing thing when anything is. */
export async function requirePrerequisites(needs: Need[]): Promise<Found> {
  const found: Found = {};
  const missing: string[] = [];
  for (const need of needs) {
    const line = await check(need, found);
    if (line) missing.push(line);
  }
  if (missing.length) stopRun(missing);
  return found;
}

/**
 * Ends the run before any test, with the lines only. Thrown, the error would come wrapped in a stack and a
 * misleading "No test files found"; servers already started go with this process (src/redis/embedded-server.ts).
 */
export function stopRun(lines: string[]): never {
  process.stderr.write(`\nThe tests cannot run; missing:\n${lines.map((l) => `  - ${l}\n`).join('')}\n`);
  process.exit(1);
}
