/** Action URLs of the service (POST {} to `/{account}/api/{collection}/{id}/{action}`) and sub-resources kept by name. */
const KNOWN_SEGMENTS = new Set([
  'complete',
  'lock',
  'cancel',
  'reserveall',
  'edit',
  'ship',
  'pack',
  'unpack',
  'transfer',
  'history',
  'orderItem',
]);

/**
 * A request path as a template without the account, ids or query: `/{account}/api/order/{id}/complete`. Only the
 * collection and known action or sub-resource names are kept as they are; every other segment is `{id}`, so no
 * business value or account name reaches a trace through the path.
 */
export function pathTemplate(path: string, account: string): string {
  const [bare = ''] = path.split('?', 1);
  const root = `/${account}/api/`;
  if (!bare.startsWith(root)) return '/{other}';
  const [collection = '', ...rest] = bare.slice(root.length).split('/');
  const head = /^[A-Za-z]+$/.test(collection) ? collection : '{collection}';
  const tail = rest.map((segment, i) => (i > 0 && KNOWN_SEGMENTS.has(segment) ? segment : '{id}'));
  return ['/{account}/api', head, ...tail].join('/');
}

/** A call span's name: method and template without the account, e.g. `POST /api/order` or `GET /api/order/{id}`. */
export function callSpanName(method: string, template: string): string {
  return `${method} ${template.replace(/^\/\{account\}/, '')}`;
}
