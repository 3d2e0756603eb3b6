import { toPath } from './api-path.js';
import { compose, EMPTY_CONTEXT, type Layer, type Send, type ServiceRequest } from './layers/call-layers.js';
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

/** One argument of a path template, filled in. */
function segment(name: string, value: string): string {
  if (name === 'url') return toPath(value);
  if (name === 'collection') {
    if (!/^[A-Za-z]+$/.test(value)) throw new RangeError(`collection name must be letters only, got "${value}"`);
    return value;
  }
  return encodeURIComponent(value);
}

/**
 * A row's template read once into a function of the call's arguments: `{account}` is the account, `{url}` a path as
 * the service gave it, `{collection}` letters only (RangeError otherwise), any other `{name}` an id, percent-encoded.
 */
export function pathFiller(template: string, account: string): { arity: number; fill(args: readonly unknown[]): string } {
  const parts = template.replaceAll('{account}', account).split(PARAM);
  // split() with a capture group alternates text and parameter names: text, name, text, name, ..., text.
  const names = parts.filter((_, i) => i % 2 === 1);
  return {
    arity: names.length,
    fill(args) {
      let path = parts[0]!;
      for (let i = 0; i < names.length; i++) path += segment(names[i]!, String(args[i])) + parts[2 * i + 2]!;
      return path;
    },
  };
}

/** A row as a method: the path's arguments, then the body's if it writes, then the options. */
function method(name: string, row: CallRow, account: string, send: Send) {
  const path = pathFiller(row.path, account);
  const arity = path.arity;
  const bodyArity = row.body ? row.body.length : 0;
  return (...args: unknown[]): Promise<unknown> => {
    // Built before anything is sent: a bad collection name throws at once, as a bad argument.
    // Every request has every field (one shape for the layers to pass on).
    const req: ServiceRequest = {
      call: name,
      method: row.method,
      path: path.fill(args),
      cls: row.cls,
      scope: row.scope,
      body: row.body ? row.body(...args.slice(arity, arity + bodyArity)) : undefined,
      decode: row.decode,
      options: (args[arity + bodyArity] as CallOptions | undefined) ?? {},
      context: EMPTY_CONTEXT,
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
