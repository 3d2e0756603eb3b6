import type { CallOptions, ServiceApi } from '../client/service-api.js';

/**
 * The service as reconcile reads it: each collection at most once per run (collection GETs are the scarcest budget,
 * about 300 an hour), entities one GET each; every call through the client's shared budget, and counted. It knows no
 * kind: each kind's rule says what it reads (`read` for a collection, `call` for an entity).
 */
export class ServiceView {
  readonly calls = { get: 0, collection: 0 };
  private readonly cache = new Map<string, Promise<unknown>>();
  private readonly opts: CallOptions = {
    onCall: (c) => {
      if (c.cls === 'collection') this.calls.collection++;
      else if (c.cls === 'get') this.calls.get++;
    },
  };

  constructor(private readonly client: ServiceApi) {}

  /** What `read` answers, read once per run under `name` (a collection's name for a collection), however often asked. */
  read<T>(name: string, read: (client: ServiceApi, opts: CallOptions) => Promise<T>): Promise<T> {
    return this.once(name, () => read(this.client, this.opts));
  }

  private once<T>(name: string, read: () => Promise<T>): Promise<T> {
    let hit = this.cache.get(name) as Promise<T> | undefined;
    if (!hit) {
      hit = read();
      this.cache.set(name, hit);
    }
    return hit;
  }

  /** What `call` answers, asked every time (an entity's GET), through the client's budget and counted. */
  call<T>(call: (client: ServiceApi, opts: CallOptions) => Promise<T>): Promise<T> {
    return call(this.client, this.opts);
  }
}
