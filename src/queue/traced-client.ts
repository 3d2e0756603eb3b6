import type { ApiCall, CallOptions, ServiceApi } from '../client/service-api.js';

/**
 * The service as one attempt of a job sees it: every request is also reported to `onCall` (the attempt's
 * trace), and carries the attempt's abort signal unless the caller gives its own.
 */
export function tracedClient(client: ServiceApi, onCall: (call: ApiCall) => void, signal?: AbortSignal): ServiceApi {
  const opts = (o?: CallOptions): CallOptions => ({
    signal: o?.signal ?? signal,
    onCall: (call) => {
      onCall(call);
      o?.onCall?.(call);
    },
  });
  return {
    get account() {
      return client.account;
    },
    entityPath: (collection, id) => client.entityPath(collection, id),
    listFacilities: (o) => client.listFacilities(opts(o)),
    listProducts: (o) => client.listProducts(opts(o)),
    listInventoryItems: (o) => client.listInventoryItems(opts(o)),
    listCollection: (name, o) => client.listCollection(name, opts(o)),
    getOrder: (path, o) => client.getOrder(path, opts(o)),
    getShipment: (path, o) => client.getShipment(path, opts(o)),
    getProduct: (path, o) => client.getProduct(path, opts(o)),
    getVariance: (path, o) => client.getVariance(path, opts(o)),
    createOrder: (body, o) => client.createOrder(body, opts(o)),
    createShipment: (body, o) => client.createShipment(body, opts(o)),
    modifyShipment: (path, body, o) => client.modifyShipment(path, body, opts(o)),
    completeOrder: (url, o) => client.completeOrder(url, opts(o)),
    createVariance: (body, o) => client.createVariance(body, opts(o)),
    updateProduct: (path, body, o) => client.updateProduct(path, body, opts(o)),
  };
}
