import type { StoreCheck } from '../app/check-store.js';

/**
 * The store part of `check`: the shop, the token's scopes, the locations' aliases, the SKUs, the webhooks, and the
 * command that subscribes the missing ones (with what to set first when INGEST_PUBLIC_URL is not set).
 */
export function renderStoreCheck(s: StoreCheck): string {
  const out = ['', `Store: ${s.url}`];
  if (s.problem) {
    out.push(`  ${s.state}: ${s.problem.message}`, `  ${s.problem.hint}`);
    return `${out.join('\n')}\n`;
  }
  out.push(`  shop: ${s.shop!.name} (${s.shop!.domain}, ${s.shop!.zone})`);
  out.push(
    s.missingScopes.length
      ? `  scopes: the token lacks ${s.missingScopes.join(', ')}: give the custom app the scope and install it again`
      : '  scopes: enough to read orders',
  );
  out.push('  Note: by default a token reads the last 60 days of orders only; older ones need the read_all_orders scope.');
  for (const l of s.locations) {
    const maps = l.facility
      ? `${l.alias} -> ${l.facility}`
      : `no facility: add "facility,${l.alias},<Magazine / Location>" to MAPPING_FILE`;
    out.push(`  location ${l.id} (${l.name}): ${maps}`);
  }
  for (const sku of s.unknownSkus) out.push(`  SKU ${sku}: no such product in the service: add it there, or map it in MAPPING_FILE`);
  const where = s.webhooks.uri ?? '(INGEST_PUBLIC_URL not set)';
  for (const t of s.webhooks.topics) {
    const said =
      t.state === 'ok'
        ? `subscribed at ${where}`
        : t.state === 'elsewhere'
          ? `points elsewhere (${t.uris.join(', ')}), not at ${where}`
          : 'missing';
    out.push(`  webhook ${t.topic}: ${said}`);
  }
  for (const r of s.registered ?? []) out.push(`  registered ${r.topic}: ${r.error ? `refused: ${r.error}` : 'created'}`);
  if (s.webhooks.topics.some((t) => t.state !== 'ok') && !s.registered)
    out.push(
      s.webhooks.uri
        ? '  To subscribe them: inventory-sync check --register-webhooks'
        : '  To subscribe them: set INGEST_PUBLIC_URL (the origin where the store reaches the receiver, INGEST_PORT), ' +
            'then: inventory-sync check --register-webhooks',
    );
  return `${out.join('\n')}\n`;
}
