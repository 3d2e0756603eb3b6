/**
 * A process of order workers (test/kit/order-workers.ts), run as a child by bench/orders-throughput.ts and
 * bench/lib/job-overhead.ts: settings as JSON in ORDERS_WORKER; prints "ready", stops on SIGTERM.
 */
import { messageOf } from '../src/errors/message-of.js';
import { startOrderWorkers, type OrderWorkerSettings } from '../test/kit/order-workers.js';

const settings = JSON.parse(process.env.ORDERS_WORKER ?? '{}') as OrderWorkerSettings;
const running = await startOrderWorkers(settings);
process.once('SIGTERM', () => {
  running.close().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`order workers did not close: ${messageOf(err)}\n`);
      process.exit(1);
    },
  );
});
process.stdout.write('ready\n');
