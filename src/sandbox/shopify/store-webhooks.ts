import { createHmac, randomUUID } from 'node:crypto';

/** What goes wrong with the store's webhooks (Shopify's own: none lost, none late, none twice; a sandbox's: chosen). */
export interface WebhookFaults {
  /** Share of webhooks never delivered (Shopify gave up after its retries, or the subscription was deleted), 0..1. */
  drop: number;
  /** Share delivered a second time (another delivery id, the same event), 0..1. */
  duplicate: number;
  /** Each delivery waits a time drawn in [min, max] ms: so they come late and out of order. */
  delayMs: [number, number];
}

export const NO_FAULTS: WebhookFaults = { drop: 0, duplicate: 0, delayMs: [0, 0] };

export interface Delivery {
  topic: string;
  uri: string;
  body: string;
  webhookId: string;
  eventId: string;
  triggeredAt: string;
}

export interface WebhookCounts {
  sent: number;
  dropped: number;
  duplicated: number;
  failed: number;
}

/**
 * Sends a store's webhooks as Shopify does (shopify.dev, "About webhooks" and "Deliver webhooks through HTTPS"): a POST
 * of the JSON body with `X-Shopify-Topic`, `X-Shopify-Hmac-Sha256` (base64 HMAC-SHA256 of the raw body, keyed by the
 * app's secret), `X-Shopify-Shop-Domain`, `X-Shopify-API-Version`, `X-Shopify-Webhook-Id`, `X-Shopify-Event-Id` and
 * `X-Shopify-Triggered-At`; a failed delivery retried a few times (Shopify: 8 times over 4 hours; here quickly),
 * then dropped. Faults are drawn from a seeded random.
 */
export class WebhookSender {
  faults: WebhookFaults = NO_FAULTS;
  readonly counts: WebhookCounts = { sent: 0, dropped: 0, duplicated: 0, failed: 0 };
  private readonly pending = new Set<NodeJS.Timeout>();
  private inFlight = 0;
  private idleWaiters: Array<() => void> = [];
  private closed = false;

  constructor(
    private readonly o: { secret: () => string; shopDomain: string; apiVersion: string; random: () => number; retries?: number },
  ) {}

  /** Queues one event's webhook to a subscription, faults applied. */
  send(topic: string, uri: string, payload: unknown): void {
    if (this.closed) return;
    const r = this.o.random;
    if (r() < this.faults.drop) {
      this.counts.dropped++;
      return;
    }
    const d: Delivery = {
      topic,
      uri,
      body: JSON.stringify(payload),
      webhookId: randomUUID(),
      eventId: randomUUID(),
      triggeredAt: new Date().toISOString(),
    };
    this.later(d, 0);
    if (r() < this.faults.duplicate) {
      this.counts.duplicated++;
      this.later({ ...d, webhookId: randomUUID() }, 0);
    }
  }

  private later(d: Delivery, attempt: number): void {
    const [min, max] = this.faults.delayMs;
    const wait = attempt === 0 ? min + this.o.random() * (max - min) : 100 * 2 ** attempt;
    this.inFlight++;
    const t = setTimeout(() => {
      this.pending.delete(t);
      void this.post(d, attempt).finally(() => this.settle());
    }, wait);
    this.pending.add(t);
  }

  private settle(): void {
    this.inFlight--;
    if (this.inFlight === 0) for (const w of this.idleWaiters.splice(0)) w();
  }

  private async post(d: Delivery, attempt: number): Promise<void> {
    if (this.closed) return;
    const hmac = createHmac('sha256', this.o.secret()).update(d.body).digest('base64');
    const ok = await fetch(d.uri, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-shopify-topic': d.topic,
        'x-shopify-hmac-sha256': hmac,
        'x-shopify-shop-domain': this.o.shopDomain,
        'x-shopify-api-version': this.o.apiVersion,
        'x-shopify-webhook-id': d.webhookId,
        'x-shopify-event-id': d.eventId,
        'x-shopify-triggered-at': d.triggeredAt,
      },
      body: d.body,
      signal: AbortSignal.timeout(5_000),
    }).then(
      async (res) => (await res.arrayBuffer().catch(() => undefined), res.ok),
      () => false,
    );
    if (ok) this.counts.sent++;
    else if (attempt < (this.o.retries ?? 3) && !this.closed) this.later(d, attempt + 1);
    else this.counts.failed++;
  }

  /** Resolves once no delivery waits or is in flight. */
  idle(): Promise<void> {
    return this.inFlight === 0 ? Promise.resolve() : new Promise((r) => this.idleWaiters.push(r));
  }

  close(): void {
    this.closed = true;
    for (const t of this.pending) clearTimeout(t);
    this.pending.clear();
    this.inFlight = 0;
    for (const w of this.idleWaiters.splice(0)) w();
  }
}
