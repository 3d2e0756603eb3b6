import { toPath } from './api-path.js';
import { compose, type Layer, type Send, type ServiceRequest } from './call-layers.js';
import type { CallOptions } from './api-call.js';
import type { CallMethods, CallRow, CallTable } from './service-calls.js';

/** The typed API of a table: a method per row, each going through one request function. */
export type ApiOf<T extends CallTable> = CallMethods<T> & {
  readonly account: string;
  /**
   * `/{account}/api/order/{orderId}`: an order's URL uses the orderId the client chose; a variance's, the
   * physicalInventoryId the service assigned (for a collection row that carries no URL). Never for shipments (the
   * service may assign its own shipmentId; find them through the order's shipmentUrlList) nor products.
   */
  entityPath(collection: 'order' | 'inventoryvariance', id: string): string;
  /** The same calls with `layer` around the request function (outside the layers already there). */
  with(layer: Layer): ApiOf<T>;
};

const PARAM = /\{([A-Za-z]+)\}/g;

/** The path of a row's template filled in; throws RangeError on a collection name that is not letters only. */
export function fillPath(template: string, account: string, args: readonly unknown[]): string {
  let i = 0;
  return template.replace(PARAM, (_, name: string) => {
    if (name === 'account') return account;
    const value = String(args[i++]);
    if (name === 'url') return toPath(value);
    if (name === 'collection') {
      if (!/^[A-Za-z]+$/.test(value)) throw new RangeError(`collection name must be letters only, got "${value}"`);
      return value;
    }
    return encodeURIComponent(value);
  });
}

/** How many arguments a template takes (every `{name}` but `{account}`). */
function pathArity(template: string): number {
  return [...template.matchAll(PARAM)].filter((m) => m[1] !== 'account').length;
}

/** A row as a method: the path's arguments, then the body's if it writes, then the options. */
function method(name: string, row: CallRow, account: string, send: Send) {
  const arity = pathArity(row.path);
  const bodyArity = row.body ? row.body.length : 0;
  return (...args: unknown[]): Promise<unknown> => {
    // Built before anything is sent: a bad collection name throws at once, as a bad argument.
    const path = fillPath(row.path, account, args.slice(0, arity));
    const req: ServiceRequest = {
      call: name,
      method: row.method,
      path,
      cls: row.cls,
      decode: row.decode,
      options: (args[arity + bodyArity] as CallOptions | undefined) ?? {},
      ...(row.body ? { body: row.body(...args.slice(arity, arity + bodyArity)) } : {}),
    };
    return send(req);
  };
}

/** The typed API of `table` for `account`, every call going through `send`. */
export function apiOf<T extends CallTable>(table: T, account: string, send: Send): ApiOf<T> {
  const methods = Object.fromEntries(
    Object.entries(table).map(([name, row]) => [name, method(name, row as CallRow, account, send)]),
  ) as CallMethods<T>;
  return {
    ...methods,
    account,
    entityPath: (collection, id) => `/${account}/api/${collection}/${encodeURIComponent(id)}`,
    with: (layer: Layer): ApiOf<T> => apiOf(table, account, compose([layer], send)),
  };
}
