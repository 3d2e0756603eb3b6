import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { secretsOf } from '../../config/read-config.js';
import { secretSettings } from '../../config/schema.js';
import {
  COMPOSE_FILE,
  configAtStart,
  DOCUMENTED_NEEDS,
  ENV_EXAMPLE,
  knownSettings,
  missingNeeds,
  ROOT,
  secretOfFile,
  secretValue,
} from './deploy-files.js';

interface Service {
  image?: string;
  command: string[];
  env_file?: string;
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
  stop_grace_period?: string;
  healthcheck?: { test: string[] };
}
type Vars = Record<string, string>;

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
/** The containers' working folder: the image's WORKDIR, from which a relative path in a setting is read. */
const WORKDIR = /^WORKDIR\s+(\S+)$/gm.exec(
  read('Dockerfile')
    .split(/^FROM /m)
    .at(-1)!,
)![1]!;

/** .env.example as a .env made from it: as shipped, or with every commented setting put in (every documented path on). */
function dotenvOf(view: 'shipped' | 'all-on', extra: Vars = {}): Vars {
  const text = readFileSync(ENV_EXAMPLE, 'utf8');
  return { ...parseDotenv(view === 'all-on' ? text.replace(/^# ([A-Z][A-Z0-9_]*=)/gm, '$1') : text), ...extra };
}

/** docker-compose.yml with `${VAR}`, `${VAR:-default}` and `${VAR-default}` filled from a .env, as Compose fills them. */
function composeWith(vars: Vars): Record<string, Service> {
  const text = readFileSync(COMPOSE_FILE, 'utf8').replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)-([^}]*))?\}/g,
    (_m, name: string, colon: string, fallback?: string) => {
      const v = vars[name];
      if (fallback === undefined) return v ?? '';
      return v === undefined || (colon && v === '') ? fallback : v;
    },
  );
  return (parse(text, { merge: true }) as { services: Record<string, Service> }).services;
}

/** The bind mounts of a service: where each folder of the repository appears in the container, and whether read-only. */
const bindMounts = (s: Service) =>
  (s.volumes ?? [])
    .filter((v) => v.startsWith('./'))
    .map((v) => {
      const [source, target, mode] = v.split(':') as [string, string, string | undefined];
      return { source: posix.normalize(source), target, readOnly: mode === 'ro' };
    });

/** The paths of files a configuration names: each X_FILE, MAPPING_FILE, TRANSFORMS' modules; as the container resolves them. */
function namedFiles(env: Vars): Array<{ name: string; given: string; inContainer: string }> {
  const at = (name: string, given: string) => ({ name, given, inContainer: posix.resolve(WORKDIR, given) });
  const files = Object.entries(env)
    .filter(([n, v]) => v && (secretOfFile(n) || n === 'MAPPING_FILE'))
    .map(([n, v]) => at(n, v));
  const modules = (env.TRANSFORMS ?? '').split(',').map((p) => p.slice(p.indexOf('=') + 1).trim());
  return [...files, ...modules.filter((m) => m.includes('/')).map((m) => at('TRANSFORMS', m))];
}

const dir = mkdtempSync(join(tmpdir(), 'isync-compose-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A service's environment as its container sees it (the .env under the service's own), with the files its settings
 * name written where its bind mounts take them from (a secret, a mapping, a stand-in transform module), and each path
 * made the path of that file here.
 */
function containerEnv(service: Service, vars: Vars, at: string): Vars {
  const env: Vars = { PATH: process.env.PATH ?? '', ...vars, ...service.environment };
  for (const f of namedFiles(env)) {
    const mount = bindMounts(service).find((m) => f.inContainer.startsWith(`${m.target}/`));
    if (!mount) throw new Error(`${f.name}: ${f.given} is in no folder the container mounts`);
    const here = join(at, mount.source, f.inContainer.slice(mount.target.length + 1));
    mkdirSync(dirname(here), { recursive: true });
    const secret = secretOfFile(f.name);
    const content = secret
      ? secretValue(secret)
      : f.name === 'MAPPING_FILE'
        ? 'kind,upstream,service\nproduct,SKU-0001,MUG-BLUE\n'
        : 'export default (payload) => payload;\n';
    writeFileSync(here, content);
    env[f.name] = env[f.name]!.split(f.given).join(here);
  }
  return env;
}

/** The published ports of a service: the host's address and port, the container's port. */
const published = (s: Service) =>
  (s.ports ?? []).map((p) => {
    const [host, hostPort, containerPort] = p.split(':') as [string, string, string];
    return { host, hostPort: Number(hostPort), containerPort: Number(containerPort) };
  });

/** The services that run the program: those handed .env. */
const programServices = (services: Record<string, Service>) => Object.entries(services).filter(([, s]) => s.env_file === '.env');

describe('docker-compose.yml with .env.example', () => {
  const compose = composeWith(dotenvOf('all-on'));
  const program = programServices(compose);

  it('run the worker and the dashboard from .env, and a Redis that keeps its data and never evicts', () => {
    expect(program.map(([name, s]) => [name, s.command[0]])).toEqual([
      ['worker', 'worker'],
      ['dashboard', 'dashboard'],
    ]);
    const redis = compose.redis!;
    const arg = (flag: string) => redis.command[redis.command.indexOf(flag) + 1];
    expect([arg('--appendonly'), arg('--maxmemory-policy')]).toEqual(['yes', 'noeviction']);
    expect(redis.volumes).toContainEqual(expect.stringMatching(/^[a-z-]+:\/data$/));
    expect(redis.healthcheck!.test).toEqual(['CMD', 'redis-cli', 'ping']);
    for (const [name, s] of program) {
      expect(s.depends_on, name).toEqual({ redis: { condition: 'service_healthy' } });
      const url = new URL(s.environment!.REDIS_URL!);
      expect([url.hostname, url.port], name).toEqual(['redis', '6379']);
    }
  });

  it('name only settings the program has, and no secret but as its file (X_FILE)', () => {
    const known = knownSettings();
    const names = [...Object.keys(dotenvOf('all-on')), ...program.flatMap(([, s]) => Object.keys(s.environment ?? {}))];
    expect(names.filter((n) => !known.has(n))).toEqual([]);
    expect(names.filter((n) => (secretSettings as readonly string[]).includes(n))).toEqual([]);
  });

  it('name every setting that docs/going-live.md, docs/shopify.md, docs/push.md and docs/deployment.md need', () => {
    const names = new Set([...Object.keys(dotenvOf('all-on')), ...Object.keys(compose.worker!.environment ?? {})]);
    expect(missingNeeds(names)).toEqual([]);
  });

  it('mount, read-only, every folder a setting names a file in, and keep those folders out of the image', () => {
    const dockerignore = read('.dockerignore').split('\n');
    for (const [name, s] of program) {
      const env = { ...dotenvOf('all-on'), ...s.environment };
      const files = namedFiles(env);
      expect(files.length).toBeGreaterThan(0);
      for (const f of files) {
        const mount = bindMounts(s).find((m) => f.inContainer.startsWith(`${m.target}/`));
        expect(mount, `${name}: ${f.name}=${f.given}`).toMatchObject({ readOnly: true });
        // The same relative path beside docker-compose.yml: one .env for the containers and for npx inventory-sync.
        expect(posix.join(mount!.source, posix.relative(mount!.target, f.inContainer)), f.name).toBe(posix.normalize(f.given));
      }
      for (const m of bindMounts(s)) expect(dockerignore, m.source).toContain(m.source);
    }
    expect(read('.gitignore').split('\n')).toContain('/secrets/');
  });

  describe('as shipped', () => {
    it("give each container an environment that passes its command's configuration check, without a receiver", async () => {
      const vars = dotenvOf('shipped');
      for (const [name, s] of programServices(composeWith(vars))) {
        const env = containerEnv(s, vars, join(dir, 'shipped', name));
        const config = await configAtStart(env, s.command[0]!);
        for (const x of Object.keys(env).flatMap((n) => secretOfFile(n) ?? []))
          expect(secretsOf(config), `${name}: ${x}`).toContain(secretValue(x));
        expect(config.service?.apiKey, name).toBe(secretValue('INVENTORY_API_KEY'));
        expect(config.ingest.port, name).toBeUndefined();
      }
    });
  });

  describe('with every commented setting put in (the mapping, pushes, transforms, a store, alerts)', () => {
    it("give each container an environment that passes its command's configuration check", async () => {
      const vars = dotenvOf('all-on');
      for (const [name, s] of program) {
        const env = containerEnv(s, vars, join(dir, 'all-on', name));
        const config = await configAtStart(env, s.command[0]!);
        for (const x of Object.keys(env).flatMap((n) => secretOfFile(n) ?? []))
          expect(secretsOf(config), `${name}: ${x}`).toContain(secretValue(x));
        expect(config.shopify?.token, name).toBe(secretValue('SHOPIFY_ACCESS_TOKEN'));
        expect(config.mapping?.products.get('SKU-0001'), name).toBe('MUG-BLUE');
        expect(
          config.transforms?.map((t) => t.stream),
          name,
        ).toContain('stock-counts');
        expect(config.ingest, name).toMatchObject({ secret: secretValue('INGEST_SECRET'), hmacSecret: secretValue('INGEST_HMAC_SECRET') });
      }
    });

    it('publish, on the host loopback only, the ports the worker and the dashboard listen on, whatever INGEST_PORT is', async () => {
      for (const port of [undefined, '9000']) {
        const vars = dotenvOf('all-on', port ? { INGEST_PORT: port } : {});
        const services = composeWith(vars);
        const worker = await configAtStart(containerEnv(services.worker!, vars, join(dir, `ports-${port}`)), 'worker');
        expect(worker.ingest.host).toBe('0.0.0.0');
        expect(worker.http.host).toBe('0.0.0.0');
        expect(published(services.worker!).map((p) => p.containerPort)).toEqual([worker.http.port, worker.ingest.port]);
        const dashboard = services.dashboard!;
        expect(published(dashboard).map((p) => p.containerPort)).toEqual([
          Number(dashboard.command[dashboard.command.indexOf('--port') + 1]),
        ]);
        for (const p of [...published(services.worker!), ...published(dashboard)]) {
          expect(p.host).toBe('127.0.0.1');
          expect(p.hostPort).toBe(p.containerPort);
        }
      }
    });

    it('give the worker more time to stop than the shutdown grace it reads', async () => {
      const vars = dotenvOf('all-on');
      const config = await configAtStart(containerEnv(compose.worker!, vars, join(dir, 'grace')), 'worker');
      expect(Number(/^(\d+)s$/.exec(compose.worker!.stop_grace_period!)![1])).toBeGreaterThan(config.shutdownGraceSeconds);
    });
  });
});

describe('the settings the documented paths need', () => {
  it.each(Object.entries(DOCUMENTED_NEEDS))('are each named by %s', (doc, needs) => {
    const text = read(doc);
    expect(needs.filter((n) => !new RegExp(`\\b${n}\\b`).test(text))).toEqual([]);
  });
});
