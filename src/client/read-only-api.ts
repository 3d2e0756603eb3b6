import type { ServiceApi } from './service-api.js';

/** A write reached a client that must only read: a bug in the dry run, never sent. */
export class WriteRefusedError extends Error {
  readonly code = 'WRITE_REFUSED';
  readonly retryable = false;

  constructor(readonly call: string) {
    super(`internal error: ${call} was called on a read-only service client (dry run); nothing was sent`);
    this.name = 'WriteRefusedError';
  }
}

const refuse = (call: string) => (): Promise<never> => Promise.reject(new WriteRefusedError(call));

/** The service for the dry run: every read as `api` makes it, every write refused before anything is sent. */
export function readOnlyApi(api: ServiceApi): ServiceApi {
  return {
    get account() {
      return api.account;
    },
    entityPath: (collection, id) => api.entityPath(collection, id),
    listFacilities: (o) => api.listFacilities(o),
    listProducts: (o) => api.listProducts(o),
    listInventoryItems: (o) => api.listInventoryItems(o),
    listCollection: (name, o) => api.listCollection(name, o),
    getOrder: (path, o) => api.getOrder(path, o),
    getShipment: (path, o) => api.getShipment(path, o),
    getProduct: (path, o) => api.getProduct(path, o),
    getVariance: (path, o) => api.getVariance(path, o),
    createOrder: refuse('createOrder'),
    createShipment: refuse('createShipment'),
    modifyShipment: refuse('modifyShipment'),
    completeOrder: refuse('completeOrder'),
    createVariance: refuse('createVariance'),
    updateProduct: refuse('updateProduct'),
  };
}
