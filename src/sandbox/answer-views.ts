import { ORDER_CANCELLED, ORDER_COMPLETED, ORDER_CREATED, ORDER_LOCKED } from './order-status.js';
import type { ProfileRules } from './profile-rules.js';
import type {
  OrderEntity,
  OrderItemEntity,
  ProductEntity,
  ShipmentEntity,
  StatusHistoryEntry,
  VarianceEntity,
} from './sandbox-entities.js';

/**
 * How stored entities are answered under a profile. The store keeps one model (string ids, every action URL,
 * [] for empty lists, txStamp in ms: what admin.state() shows); `spec` answers it as is, `observed` answers it
 * as docs/service.md "Null and absent fields" says the real service does.
 */

type Json = Record<string, unknown>;

const ORDER_LISTS = ['orderAdjustmentList', 'orderRoleList', 'contentList', 'userFieldDataList', 'shipmentUrlList', 'invoiceUrlList'];
const SHIPMENT_LISTS = ['userFieldDataList', 'contentList', 'transferList'];
const VARIANCE_LISTS = ['contentList'];
const PRODUCT_LISTS = ['productAssocList'];

/** Order actions and the statuses in which each is valid. */
const ORDER_ACTION_STATES: Record<string, readonly string[]> = {
  actionUrlLock: [ORDER_CREATED],
  actionUrlComplete: [ORDER_CREATED, ORDER_LOCKED],
  actionUrlCancel: [ORDER_CREATED, ORDER_LOCKED],
  reserveAllUrl: [ORDER_CREATED, ORDER_LOCKED],
  // A completed order only where the profile can make it editable again (editAction; see orderView).
  actionUrlEdit: [ORDER_LOCKED, ORDER_COMPLETED],
};

const SHIPMENT_ACTION_STATES: Record<string, readonly string[]> = {
  actionUrlShip: ['SHIPMENT_INPUT', 'SHIPMENT_PACKED'],
  actionUrlPack: ['SHIPMENT_INPUT'],
  actionUrlUnpack: ['SHIPMENT_PACKED'],
  actionUrlCancel: ['SHIPMENT_INPUT', 'SHIPMENT_PACKED'],
  actionUrlTransfer: ['SHIPMENT_INPUT', 'SHIPMENT_PACKED', 'SHIPMENT_SHIPPED'],
};

export function orderView(rules: ProfileRules, order: OrderEntity): OrderEntity | Json {
  // Without editAction nothing makes a completed order editable: its /edit is no action (404), so no URL to it.
  const noEdit = !rules.editAction && order.statusId === ORDER_COMPLETED;
  if (rules.name === 'spec' && !noEdit) return order;
  const out: Json = { ...order };
  if (noEdit) delete out.actionUrlEdit;
  if (rules.name === 'spec') return out;
  // The sandbox keeps no invoices; the real service lists them.
  out.invoiceUrlList = [];
  actions(rules, out, ORDER_ACTION_STATES, order.statusId);
  if (rules.invalidActions && !open(order)) out.orderItemList = order.orderItemList.map((i) => orderItemView(rules, order, i));
  lists(rules, out, ORDER_LISTS);
  return out;
}

/** An order item: its reserveUrl is an action of the order. */
export function orderItemView(rules: ProfileRules, order: OrderEntity, item: OrderItemEntity): OrderItemEntity | Json {
  if (!rules.invalidActions || open(order)) return item;
  const out: Json = { ...item };
  invalid(rules, out, 'reserveUrl');
  return out;
}

export function shipmentView(rules: ProfileRules, s: ShipmentEntity): ShipmentEntity | Json {
  if (rules.name === 'spec') return s;
  const out: Json = { ...s, statusIdHistoryList: historyView(rules, s.statusIdHistoryList) };
  if (rules.numericIds) out.shipmentId = numeric(s.shipmentId);
  actions(rules, out, SHIPMENT_ACTION_STATES, s.statusId);
  lists(rules, out, SHIPMENT_LISTS);
  return out;
}

export function varianceView(rules: ProfileRules, v: VarianceEntity): VarianceEntity | Json {
  if (rules.name === 'spec') return v;
  const out: Json = { ...v, statusIdHistoryList: historyView(rules, v.statusIdHistoryList) };
  if (rules.numericIds) out.physicalInventoryId = numeric(v.physicalInventoryId);
  actions(rules, out, { actionUrlCancel: ['PHSCL_INV_CREATED'] }, v.statusId);
  lists(rules, out, VARIANCE_LISTS);
  return out;
}

export function productView(rules: ProfileRules, p: ProductEntity): ProductEntity | Json {
  if (!rules.nullEmptyLists || p.productAssocList.length) return p;
  const out: Json = { ...p };
  lists(rules, out, PRODUCT_LISTS);
  return out;
}

/** A status history with txStamp in the profile's unit (stored in ms). */
export function historyView(rules: ProfileRules, entries: readonly StatusHistoryEntry[]): readonly StatusHistoryEntry[] {
  if (rules.txStampUnit === 'ms') return entries;
  return entries.map((e) => ({ ...e, txStamp: Math.floor(e.txStamp / 1000) }));
}

const open = (order: OrderEntity) => order.statusId !== ORDER_COMPLETED && order.statusId !== ORDER_CANCELLED;

function actions(rules: ProfileRules, out: Json, states: Record<string, readonly string[]>, statusId: string): void {
  if (!rules.invalidActions) return;
  for (const [field, valid] of Object.entries(states)) if (field in out && !valid.includes(statusId)) invalid(rules, out, field);
}

function invalid(rules: ProfileRules, out: Json, field: string): void {
  if (rules.invalidActions === 'absent') delete out[field];
  else out[field] = null;
}

function lists(rules: ProfileRules, out: Json, names: readonly string[]): void {
  if (!rules.nullEmptyLists) return;
  for (const n of names) if (Array.isArray(out[n]) && (out[n] as unknown[]).length === 0) out[n] = null;
}

/** A sandbox-assigned id as a JSON number; an id that is not a plain number (loaded from a data file) stays a string. */
function numeric(id: string): number | string {
  return /^\d{1,15}$/.test(id) ? Number(id) : id;
}
