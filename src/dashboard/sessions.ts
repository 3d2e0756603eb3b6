import { randomBytes } from 'node:crypto';

interface Session {
  /** Epoch ms the session ends, whatever its use. */
  endsAt: number;
  /** Epoch ms of its last use. */
  seenAt: number;
}

/** Signed-in sessions in memory: each ends `ttlMs` after login or `idleMs` after its last use, whichever is first. */
export class Sessions {
  // A Map keeps insertion order: the first entry is the oldest login.
  private readonly byId = new Map<string, Session>();

  constructor(private readonly o: { ttlMs: number; idleMs: number; max: number; now: () => number }) {}

  /** Starts a session; answers its id (32 random bytes, hex). Past `max`, the oldest session ends. */
  create(): string {
    const id = randomBytes(32).toString('hex');
    const now = this.o.now();
    this.byId.set(id, { endsAt: now + this.o.ttlMs, seenAt: now });
    while (this.byId.size > this.o.max) this.byId.delete(this.byId.keys().next().value as string);
    return id;
  }

  /** Whether `id` is a live session; marks it used. An ended one is removed. */
  use(id: string | undefined): boolean {
    if (!id) return false;
    const s = this.byId.get(id);
    if (!s) return false;
    const now = this.o.now();
    if (this.ended(s, now)) {
      this.byId.delete(id);
      return false;
    }
    s.seenAt = now;
    return true;
  }

  end(id: string | undefined): void {
    if (id) this.byId.delete(id);
  }

  /** Removes every ended session; answers how many. */
  sweep(): number {
    const now = this.o.now();
    let n = 0;
    for (const [id, s] of this.byId) {
      if (this.ended(s, now)) {
        this.byId.delete(id);
        n++;
      }
    }
    return n;
  }

  get size(): number {
    return this.byId.size;
  }

  private ended(s: Session, now: number): boolean {
    return now >= s.endsAt || now - s.seenAt >= this.o.idleMs;
  }
}
