import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdmin, type SandboxAdmin } from './admin.js';
import { handleAdmin } from './admin-http.js';
import { handleApi, internalError } from './api-handler.js';
import { SandboxCore } from './sandbox-core.js';
import { sandboxDefaults, type SandboxOptions, type SandboxProfile } from './sandbox-options.js';

export interface Sandbox {
  /** Base URL, e.g. http://127.0.0.1:8080; API paths are {url}/{account}/api/..., admin paths {url}/_admin/... */
  url: string;
  host: string;
  port: number;
  account: string;
  /** How it answers (SandboxOptions.profile). */
  profile: SandboxProfile;
  key: string;
  secret: string;
  admin: SandboxAdmin;
  /** Stops listening and ends open connections (hung requests included). */
  close(): Promise<void>;
}

/** Starts the embedded implementation of the service (src/sandbox, docs/sandbox.md). */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const core = new SandboxCore(options);
  const admin = createAdmin(core);
  const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    const raw = req.url ?? '/';
    const q = raw.indexOf('?');
    const path = q < 0 ? raw : raw.slice(0, q);
    const query = q < 0 ? '' : raw.slice(q + 1);
    const done = path.startsWith('/_admin') ? handleAdmin(core, admin, req, res, path, query) : handleApi(core, req, res, path, query);
    done.catch((err: unknown) => internalError(res, err));
  });
  const host = options.host ?? sandboxDefaults.host;
  await listen(server, options.port ?? sandboxDefaults.port, host);
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${urlHost(host)}:${port}`,
    host,
    port,
    account: core.account,
    profile: core.profile.name,
    key: core.key,
    secret: core.secret,
    admin,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** One line for the operator: where the sandbox listens and which account it serves (never the secret). */
export function sandboxBanner(sb: Pick<Sandbox, 'url' | 'account' | 'profile'>, data: string = sandboxDefaults.data): string {
  return (
    `inventory-sync sandbox listening on ${sb.url}: API ${sb.url}/${sb.account}/api/, admin ${sb.url}/_admin/ ` +
    `(account ${sb.account}, data ${data}, profile ${sb.profile})`
  );
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** The host to put in a URL: a wildcard address is reached on loopback; IPv6 goes in brackets. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
