import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadMapping } from '../../config/mapping-file.js';
import type { Config } from '../../config/read-config.js';
import { openApp } from '../app/app-context.js';
import type { CliIo, OutStream } from '../app/cli-io.js';
import { startIngest } from '../app/start-ingest.js';
import { startRuntime } from '../app/runtime.js';
import { storeKind } from '../app/feed-sources.js';
import { foundInLastHour } from '../feed/store-found.js';
import type { Kind } from '../kinds/kind.js';
import { jobIdFor } from '../queue/job-id.js';
import { restOrder } from '../sandbox/shopify/store-rest.js';
import { SANDBOX_STORE_MAPPING, startShopifyStore } from '../sandbox/shopify/shopify-store.js';
import { liveLives } from '../sandbox/shopify/store-lives.js';
import { freePort } from '../net/free-port.js';
import { deleteKeysUnder } from '../redis/connection.js';
import type { Cleanups, Say } from './demo-services.js';

const LIVES = 12;

/**
 * `demo --store`: a sandbox Shopify store feeding the demo's service: orders living their lives in the store, their
 * webhooks (a fifth lost, the rest late and some twice) taken by a receiver, and the store pulled every 2 s for what
 * they missed, until every change is in the service; then what happened, said in a few lines.
 */
export async function demoStore(
  io: CliIo,
  demo: Config,
  kinds: readonly Kind[],
  say: Say,
  cleanups: Cleanups,
  logTo: OutStream,
): Promise<{ ok: boolean; prefix: string }> {
  const store = await startShopifyStore({ seed: 3 });
  cleanups.unshift(() => store.close());
  const dir = mkdtempSync(join(tmpdir(), 'inventory-sync-demo-store-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'mapping.csv'), SANDBOX_STORE_MAPPING);
  const mapped = loadMapping(join(dir, 'mapping.csv'));
  if ('problems' in mapped) throw new Error(mapped.problems.join('; '));
  const port = await freePort();
  const config: Config = {
    ...demo,
    upstream: undefined,
    mapping: mapped.mapping,
    shopify: { storeUrl: store.url, token: store.token, apiVersion: '2025-10', pollSeconds: 2, lookBackSeconds: 120 },
    ingest: { ...demo.ingest, port, host: '127.0.0.1', hmacSecret: store.webhookSecret },
    redis: { ...demo.redis, prefix: `${demo.redis.prefix}-store` },
  };
  const stream = storeKind(config, kinds)?.stream;
  if (!stream) return { ok: true, prefix: config.redis.prefix };
  const app = await openApp(io, { kinds, config, logTo });
  cleanups.unshift(() => app.close());
  await deleteKeysUnder(app.redis, config.redis.prefix);
  const receiver = await startIngest([{ config, queues: app.deps.queues }], { redis: app.redis, kinds, logger: app.logger, port });
  cleanups.unshift(() => receiver.close());
  for (const topic of ['orders/create', 'orders/updated', 'orders/cancelled', 'refunds/create'])
    store.admin.subscribe(topic, `${receiver.url}/ingest/${stream}`);
  store.admin.setFaults({ drop: 0.2, duplicate: 0.2, delayMs: [0, 800] });
  const runtime = await startRuntime(app.deps, { kinds: kinds.filter((k) => k.stream === stream), withSchedulers: true });
  cleanups.unshift(() => runtime.close(1_000));
  say('');
  say(`A Shopify store (the sandbox's, ${store.url}): ${LIVES} orders live their lives there; its webhooks reach ${receiver.url}`);
  say('  (a fifth of them lost, the rest late, some twice), and the store is pulled every 2 s for what they missed.');
  // The first read of the empty store, so that what the pull finds from now on is counted.
  await new Promise((r) => setTimeout(r, 2_500));
  await liveLives(store, LIVES);
  await store.admin.webhooksIdle();
  const queue = app.deps.queues.get(stream);
  const kind = storeKind(config, kinds)!;
  const made = kind.record.transforms![kind.feed.stores!.shopify!]!;
  // The job of each order's last state in the store: done when every one of them has completed.
  const lastJobs = async () =>
    Promise.all(
      [...store.admin.orders.orders.values()].map(async (o) => {
        const record = await made(restOrder(o, store.zone, store.domain), { stream, upstreamId: String(o.id) });
        return queue.getJobState(jobIdFor(kind, record));
      }),
    );
  const deadline = Date.now() + 60_000;
  let done = false;
  while (!done && Date.now() < deadline && !io.stop.aborted) {
    await new Promise((r) => setTimeout(r, 1_000));
    done = (await lastJobs()).every((state) => state === 'completed');
  }
  const w = store.admin.webhookCounts();
  const found = await foundInLastHour(app.redis, app.deps.keys, stream);
  const failed = (await queue.getJobCounts('failed')).failed ?? 0;
  say(
    `  webhooks: ${w.sent} delivered, ${w.dropped} lost, ${w.duplicated} sent twice; ` +
      `the pull found ${found} ${found === 1 ? 'change' : 'changes'} no webhook brought.`,
  );
  // Where to look is in the summary's commands, under the store's own prefix (its orders are not the feed's).
  const end = failed
    ? `${failed} ${failed === 1 ? 'job' : 'jobs'} failed (the commands below list them).`
    : done
      ? 'every order is in the service as the store has it now, each change applied once.'
      : 'not every order synced within a minute (the commands below show where they are).';
  say(`  ${end}`);
  return { ok: failed === 0 && done, prefix: config.redis.prefix };
}
