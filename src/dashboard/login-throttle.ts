/** A refusal: how long until an attempt would be taken, and whose limit it hit. */
export interface ThrottleRefusal {
  ok: false;
  retryAfterMs: number;
  scope: 'client' | 'overall';
}

/** A taken attempt; `giveBack` when it succeeded, so that good logins never count against anyone. */
export interface ThrottleGrant {
  ok: true;
  giveBack(): void;
}

/**
 * Login attempts in a sliding window, per client address and over all clients. An attempt is counted when it
 * arrives, not when it fails, so parallel guesses are limited as much as sequential ones.
 */
export class LoginThrottle {
  private readonly byClient = new Map<string, number[]>();
  private overall: number[] = [];

  constructor(private readonly o: { perClient: number; overall: number; windowMs: number; now: () => number }) {}

  take(client: string): ThrottleGrant | ThrottleRefusal {
    const now = this.o.now();
    const since = now - this.o.windowMs;
    this.overall = this.overall.filter((t) => t > since);
    const mine = (this.byClient.get(client) ?? []).filter((t) => t > since);
    if (mine.length >= this.o.perClient) return { ok: false, retryAfterMs: (mine[0] as number) - since, scope: 'client' };
    if (this.overall.length >= this.o.overall) return { ok: false, retryAfterMs: (this.overall[0] as number) - since, scope: 'overall' };
    mine.push(now);
    this.overall.push(now);
    this.byClient.set(client, mine);
    return {
      ok: true,
      giveBack: () => {
        dropOne(this.byClient.get(client), now);
        dropOne(this.overall, now);
      },
    };
  }

  /** Forgets clients with no attempt in the window. */
  sweep(): void {
    const since = this.o.now() - this.o.windowMs;
    for (const [client, times] of this.byClient) if (!times.some((t) => t > since)) this.byClient.delete(client);
  }

  get clients(): number {
    return this.byClient.size;
  }
}

function dropOne(times: number[] | undefined, t: number): void {
  const i = times?.indexOf(t) ?? -1;
  if (i >= 0) times!.splice(i, 1);
}
