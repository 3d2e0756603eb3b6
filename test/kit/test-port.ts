import { createServer } from 'node:net';

/** Ports handed out by this test process: a block of its own, below the kernel's ephemeral range. */
const BLOCK = 1_000;
const FIRST = 20_000;
let next = 0;

/** Whether a server can listen on the port on 127.0.0.1 now. */
function free(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/**
 * A TCP port for a server that a test starts in a child process (the worker's endpoints, a receiver), which cannot
 * listen on port 0 and say where. Not from the kernel's ephemeral range (32768-60999 by default), where a port freed a
 * moment ago can be taken by any outgoing connection's local end or by another test file's port 0 meanwhile (seen in
 * CI: "WORKER_HTTP_PORT ... is in use"), but from 20000-29999, in a block of 1,000 for each vitest worker
 * (VITEST_POOL_ID), so that files running at once never pick the same one; checked free before it is handed out.
 */
export async function freePort(): Promise<number> {
  const pool = Number(process.env.VITEST_POOL_ID ?? process.pid) % 10;
  for (let tries = 0; tries < BLOCK; tries++) {
    const port = FIRST + pool * BLOCK + (next++ % BLOCK);
    if (await free(port)) return port;
  }
  throw new Error(`no free port in ${FIRST + pool * BLOCK}-${FIRST + pool * BLOCK + BLOCK - 1}`);
}
