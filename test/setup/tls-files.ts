import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { RedisServerTls } from '../../src/redis/embedded-server.js';

const run = promisify(execFile);

/**
 * A private CA made for the run, and a server certificate it signed for 127.0.0.1 and localhost (P-256 keys: quick
 * to make), written to `dir` with openssl; what redis-server's TLS options and its clients need.
 */
export async function makeTlsFiles(dir: string): Promise<RedisServerTls> {
  const f = (name: string) => join(dir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await run('openssl', [
    'req',
    '-x509',
    ...ec,
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.crt'),
    '-days',
    '2',
    '-subj',
    '/CN=inventory-sync test CA',
  ]);
  await run('openssl', ['req', '-new', ...ec, '-keyout', f('server.key'), '-out', f('server.csr'), '-subj', '/CN=localhost']);
  writeFileSync(f('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  await run('openssl', [
    'x509',
    '-req',
    '-in',
    f('server.csr'),
    '-CA',
    f('ca.crt'),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-out',
    f('server.crt'),
    '-days',
    '2',
    '-extfile',
    f('server.ext'),
  ]);
  return { certFile: f('server.crt'), keyFile: f('server.key'), caFile: f('ca.crt'), ca: readFileSync(f('ca.crt'), 'utf8') };
}
