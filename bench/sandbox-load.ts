/**
 * Throughput of the sandbox: the sandbox runs alone in a child process (one event loop, so one core) and
 * autocannon loads it from this process. Prints requests a second and latency p50/p99 per scenario.
 *
 *   npx tsx bench/sandbox-load.ts [seconds per scenario, default 10] [connections, default 50] [--profile observed|spec]
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { parseProfile } from '../src/sandbox/profile-rules.js';
import { sandboxDefaults, type SandboxProfile } from '../src/sandbox/sandbox-options.js';

export interface LoadFigure {
  scenario: string;
  /** Mean requests a second over the run. */
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** Requests per second of the sandbox process's own CPU time: its one-core capacity, whatever else runs. */
  reqPerCpuSec: number;
  non2xx: number;
  errors: number;
}

export interface SandboxLoadOptions {
  /** Seconds per scenario. Default: 10. */
  seconds?: number;
  /** Concurrent connections. Default: 50. */
  connections?: number;
  /** How the sandbox answers. Default: sandboxDefaults.profile. */
  profile?: SandboxProfile;
}

const auth = `Basic ${Buffer.from('demo:demo').toString('base64')}`;

/** Scenarios over the demo account: a single-entity GET, a cached collection GET, a cheap write, an order create. */
function scenarios(url: string): Array<{ name: string; opts: Partial<autocannon.Options> }> {
  const api = `${url}/demo/api`;
  return [
    { name: 'GET entity (product/10003)', opts: { url: `${api}/product/10003` } },
    { name: 'GET collection (product, 251 rows)', opts: { url: `${api}/product` } },
    {
      name: 'POST product update (no BOM change)',
      opts: {
        url: `${api}/product/10003`,
        method: 'POST',
        body: JSON.stringify({ productId: 'SKU-0003', productUrl: '/demo/api/product/10003' }),
      },
    },
    {
      name: 'POST order create (unique orderIds)',
      opts: {
        url: `${api}/order`,
        method: 'POST',
        idReplacement: true,
        body: JSON.stringify({
          orderId: 'LOAD-[<id>]',
          orderTypeId: 'SALES_ORDER',
          originFacilityUrl: '/demo/api/facility/10000',
          orderItemList: [{ productId: 'MUG-BLUE', productUrl: '/demo/api/product/MUG-BLUE', unitPrice: 12.5, quantity: 2 }],
        }),
      },
    },
  ];
}

/** Starts a sandbox in a child process and loads it with each scenario in turn. */
export async function runSandboxLoadBench(o: SandboxLoadOptions = {}): Promise<LoadFigure[]> {
  const { child, url } = await startChild(o.profile ?? sandboxDefaults.profile);
  try {
    const figures: LoadFigure[] = [];
    for (const s of scenarios(url)) {
      const cpuBefore = await childCpuMs(child);
      const r = await autocannon({
        connections: o.connections ?? 50,
        duration: o.seconds ?? 10,
        headers: { authorization: auth, 'content-type': 'application/json' },
        ...s.opts,
      } as autocannon.Options);
      const cpuMs = (await childCpuMs(child)) - cpuBefore;
      figures.push({
        scenario: s.name,
        reqPerSec: Math.round(r.requests.average),
        p50Ms: r.latency.p50,
        p99Ms: r.latency.p99,
        requests: r.requests.total,
        reqPerCpuSec: Math.round(r.requests.total / (cpuMs / 1000)),
        non2xx: r.non2xx,
        errors: r.errors,
      });
    }
    return figures;
  } finally {
    child.kill();
  }
}

/** User + system CPU time the sandbox process has used, in ms. */
function childCpuMs(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once('message', (m) => resolve((m as { cpuMs: number }).cpuMs));
    child.send('cpu');
  });
}

function startChild(profile: SandboxProfile): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ['--serve', profile], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
    child.once('message', (m) => resolve({ child, url: (m as { url: string }).url }));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`sandbox child exited with ${code}`)));
  });
}

async function serve(profile: SandboxProfile): Promise<void> {
  const { startSandbox } = await import('../src/sandbox/sandbox.js');
  const sb = await startSandbox({ port: 0, profile });
  process.send?.({ url: sb.url });
  process.on('message', () => {
    const u = process.cpuUsage();
    process.send?.({ cpuMs: (u.user + u.system) / 1000 });
  });
  process.on('disconnect', () => void sb.close().then(() => process.exit(0)));
}

function print(figures: LoadFigure[]): void {
  console.log(`node ${process.version}, sandbox in one child process, autocannon in this one`);
  console.log(
    'scenario'.padEnd(40),
    'req/s'.padStart(8),
    'p50 ms'.padStart(8),
    'p99 ms'.padStart(8),
    'req/cpu-s'.padStart(10),
    'non2xx'.padStart(7),
    'errors'.padStart(7),
  );
  for (const f of figures) {
    const cells = [f.reqPerSec, f.p50Ms, f.p99Ms].map((n) => String(n).padStart(8));
    console.log(
      f.scenario.padEnd(40),
      ...cells,
      String(f.reqPerCpuSec).padStart(10),
      String(f.non2xx).padStart(7),
      String(f.errors).padStart(7),
    );
  }
  console.log("req/cpu-s: requests served per second of the sandbox process's CPU time (its capacity on one core).");
}

const direct = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (direct && process.argv[2] === '--serve') await serve(parseProfile(process.argv[3] ?? sandboxDefaults.profile));
else if (direct) {
  // [seconds] [connections] [--profile observed|spec]
  const p = process.argv.indexOf('--profile');
  const profile = p > 0 ? parseProfile(process.argv[p + 1] ?? '') : undefined;
  const [seconds, connections] = process.argv.slice(2, p > 0 ? p : undefined).map(Number);
  print(await runSandboxLoadBench({ seconds: seconds || undefined, connections: connections || undefined, profile }));
}
