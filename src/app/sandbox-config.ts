import type { SettingsOfKind } from '../../config/kind-setting.js';
import { readConfig, type Budgets, type Config, type ServiceConfig } from '../../config/read-config.js';
import type { RedisTarget } from '../../config/redis-target.js';

/** How to reach a sandbox of the service (src/sandbox/sandbox.ts answers this). */
export interface SandboxAccess {
  url: string;
  account: string;
  key: string;
  secret: string;
}

interface SandboxConfigSettings {
  /** The kinds whose settings' defaults the default base has (their poll intervals). Default: none. */
  kinds?: readonly SettingsOfKind[];
  prefix?: string;
  /** Over the base's budgets (a sandbox has no limits unless told). */
  budgets?: Partial<Budgets>;
  /** Over the base's client settings (e.g. readRetries). */
  service?: Partial<Omit<ServiceConfig, 'budgets'>>;
  jobs?: Partial<Config['jobs']>;
  catalogRefreshSeconds?: number;
}

/**
 * The settings to start from (`base`), or the defaults; and where Redis is (`redis`: a URL, or a target with a
 * cluster's nodes or sentinels), over the base's. Without a base, `redis` is required: the defaults' address
 * (127.0.0.1:6379) is never the Redis a test world, a bench or a fixture means.
 */
export type SandboxConfigOptions = SandboxConfigSettings &
  ({ base: Config; redis?: RedisTarget | string } | { base?: undefined; redis: RedisTarget | string });

/** The variables that point the program at a sandbox: its URL, account and keys (for a child process's environment). */
export function sandboxEnv(sandbox: SandboxAccess): Record<string, string> {
  return {
    INVENTORY_BASE_URL: sandbox.url,
    INVENTORY_ACCOUNT: sandbox.account,
    INVENTORY_API_KEY: sandbox.key,
    INVENTORY_API_SECRET: sandbox.secret,
  };
}

/** A configuration that talks to a sandbox (demo, test worlds, benches): the base settings with its URL and keys. */
export function sandboxConfig(sandbox: SandboxAccess, o: SandboxConfigOptions): Config {
  const base = o.base ?? readConfig({}, {}, o.kinds);
  const env = readConfig(sandboxEnv(sandbox));
  const service = { ...env.service!, ...(base.service ? { budgets: base.service.budgets } : {}), ...o.service };
  const target = o.redis === undefined ? base.redis : typeof o.redis === 'string' ? { url: o.redis } : o.redis;
  return {
    ...base,
    service: { ...service, budgets: { ...service.budgets, ...o.budgets } },
    redis: { ...target, prefix: o.prefix ?? base.redis.prefix },
    jobs: { ...base.jobs, ...o.jobs },
    catalog: o.catalogRefreshSeconds === undefined ? base.catalog : { ...base.catalog, refreshSeconds: o.catalogRefreshSeconds },
  };
}
