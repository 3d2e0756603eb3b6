/**
 * Another client of the same account (a merchant's shipping or marketplace connector): one GET every
 * 60 s / perMinute, on its own schedule, whatever the answers say (no budget logic, no retry, headers ignored).
 * It counts its answers by status, so a bench or a test can tell how many of its requests were answered 429. A test
 * kit (test/kit/): the benches and the tests start it alike.
 */
import { Agent, request } from 'undici';

export interface OtherClientCounts {
  sent: number;
  ok: number;
  rateLimited: number;
  other: number;
}

export interface OtherClient {
  counts(): OtherClientCounts;
  /** When (epoch ms) each of its requests answered 429 was answered. */
  rateLimitedAt(): number[];
  stop(): Promise<void>;
}

export function startOtherClient(o: {
  url: string;
  account: string;
  key: string;
  secret: string;
  perMinute: number;
  path?: string;
}): OtherClient {
  const agent = new Agent({ keepAliveTimeout: 30_000 });
  const authorization = `Basic ${Buffer.from(`${o.key}:${o.secret}`).toString('base64')}`;
  const target = new URL(o.path ?? `/${o.account}/api/product/10003`, o.url).href;
  const counts: OtherClientCounts = { sent: 0, ok: 0, rateLimited: 0, other: 0 };
  const limitedAt: number[] = [];
  const every = 60_000 / o.perMinute;
  const t0 = Date.now();
  let i = 0;
  let stopped = false;
  const inFlight = new Set<Promise<void>>();
  const send = () => {
    counts.sent++;
    const p = request(target, { dispatcher: agent, headers: { authorization, accept: 'application/json' } })
      .then(async (res) => {
        await res.body.dump();
        if (res.statusCode === 429) limitedAt.push(Date.now());
        else if (res.statusCode < 300) counts.ok++;
        else counts.other++;
      })
      .catch(() => void counts.other++)
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  };
  let timer: NodeJS.Timeout | undefined;
  // Scheduled from the start time, not from the last send, so a late timer does not slow it down.
  const tick = () => {
    if (stopped) return;
    send();
    i++;
    timer = setTimeout(tick, Math.max(0, t0 + i * every - Date.now()));
  };
  tick();
  return {
    counts: () => ({ ...counts, rateLimited: limitedAt.length }),
    rateLimitedAt: () => [...limitedAt],
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await Promise.all(inFlight);
      await agent.close();
    },
  };
}
