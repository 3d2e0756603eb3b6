import { ConfigError } from '../../config/read-config.js';

/** Where a server listens and the settings (or flags) that say so: what a listen failure names. */
export interface ListenSetting {
  host: string;
  port: number;
  /** The setting of the port, as a person sets it: `WORKER_HTTP_PORT`, `INGEST_PORT (or --port)`, `--port`. */
  portSetting: string;
  /** The setting of the host. */
  hostSetting: string;
  /** What else the port setting allows, e.g. "0 turns the endpoints off". */
  alternative?: string;
}

/** What the failure says and which setting it is about, by the listen error's code. */
function problem(code: string | undefined, w: ListenSetting): string | undefined {
  const or = w.alternative ? ` (${w.alternative})` : '';
  const at = `${w.host}:${w.port}`;
  if (code === 'EADDRINUSE')
    return (
      `${w.portSetting}: ${at} is in use by another process (another worker, receiver or dashboard here?); ` +
      `set ${w.portSetting} to a free port${or}`
    );
  if (code === 'EACCES')
    return `${w.portSetting}: ${at} may not be opened by this user (ports below 1024 need privileges); set a port above 1024${or}`;
  if (code === 'EADDRNOTAVAIL')
    return `${w.hostSetting}: ${w.host} is not an address of this machine; set an address it has (127.0.0.1, 0.0.0.0)`;
  return undefined;
}

/**
 * Starts a server; a listen that fails for its settings (the port in use or not allowed, the address not this
 * machine's) becomes a ConfigError naming the setting (exit 2), not an error of the run.
 */
export async function listenOrConfigError<T>(start: () => Promise<T>, where: ListenSetting): Promise<T> {
  try {
    return await start();
  } catch (err) {
    const line = problem((err as NodeJS.ErrnoException).code, where);
    if (line === undefined) throw err;
    throw new ConfigError([line]);
  }
}
