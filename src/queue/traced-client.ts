import { tracing, type Layer } from '../client/layers/call-layers.js';
import type { ApiCall } from '../client/service-api.js';

/** What a layer goes around: any API of a table of calls (`ServiceApi`, or one with rows of its own). */
interface Layered<A> {
  with(layer: Layer): A;
}

/**
 * The service as one attempt of a job sees it: every request is also reported to `onCall` (the attempt's
 * trace), and carries the attempt's abort signal unless the caller gives its own.
 */
export function tracedClient<A>(client: Layered<A>, onCall: (call: ApiCall) => void, signal?: AbortSignal): A {
  return client.with(tracing(onCall, signal));
}
