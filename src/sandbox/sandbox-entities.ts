/** The sandbox's entities, in the shapes the API answers (docs/service.md "Entities"). */

export interface FacilityEntity {
  facilityId: string;
  facilityUrl: string;
  facilityName: string;
  /** null for a magazine (a warehouse); a location names its magazine. */
  parentFacilityUrl: string | null;
  /** WAREHOUSE for a magazine, LOCATION for a location (a hint; the parent is what decides). */
  facilityTypeId: string;
  statusId: string;
}

export interface ProductAssocItem {
  productUrl: string;
  quantity: number;
}

export interface ProductAssoc {
  productAssocTypeId: string;
  productAssocUrl: string;
  productAssocItemList: ProductAssocItem[];
}

export interface ProductEntity {
  productId: string;
  productUrl: string;
  internalName: string | null;
  statusId: string;
  productTypeId: string;
  productAssocList: ProductAssoc[];
}

export interface StatusHistoryEntry {
  statusId: string | null;
  txStamp: number;
  userLoginUrl: string;
}

export interface OrderItemEntity {
  orderItemUrl: string;
  reserveUrl: string;
  productId: string;
  productUrl: string;
  unitPrice: number;
  quantity: number;
}

export interface OrderEntity {
  orderId: string;
  orderUrl: string;
  orderTypeId: string;
  statusId: string;
  originFacilityUrl: string;
  orderDate: string;
  createdDate: string;
  lastUpdatedDate: string;
  orderHistoryListUrl: string;
  actionUrlLock: string;
  actionUrlComplete: string;
  actionUrlCancel: string;
  /** Makes a locked (or, under `observed`, a completed) order editable again: ORDER_CREATED. */
  actionUrlEdit: string;
  reserveAllUrl: string;
  orderItemListTotal: number;
  orderItemList: OrderItemEntity[];
  orderAdjustmentList: unknown[];
  orderRoleList: unknown[];
  contentList: unknown[];
  userFieldDataList: unknown[];
  shipmentUrlList: string[];
}

export interface ShipmentItemEntity {
  facilityUrl: string;
  productId: string;
  productUrl: string;
  quantity: number;
}

export interface ShipmentEntity {
  shipmentId: string;
  shipmentIdUser: string | null;
  shipmentUrl: string;
  shipmentTypeId: string;
  primaryOrderUrl: string;
  statusId: string;
  createdDate: string;
  lastUpdatedDate: string;
  actionUrlCancel: string;
  actionUrlPack: string;
  actionUrlUnpack: string;
  actionUrlShip: string;
  actionUrlTransfer: string;
  shipmentItemList: ShipmentItemEntity[];
  statusIdHistoryList: StatusHistoryEntry[];
  userFieldDataList: unknown[];
  contentList: unknown[];
  transferList: unknown[];
}

export interface VarianceItemEntity {
  facilityUrl: string;
  productUrl: string;
  productId: string;
  quantityOnHandVar: number;
  lotId: string | null;
  normalizedPackingString: string | null;
  shipmentBoxTypeId: string | null;
}

export interface VarianceEntity {
  physicalInventoryId: string;
  physicalInventoryUrl: string;
  physicalInventoryTypeId: string;
  physicalInventoryDate: string;
  statusId: string;
  facilityUrl: string;
  createdDate: string;
  lastUpdatedDate: string;
  actionUrlCancel: string;
  contentList: unknown[];
  inventoryItemVarianceList: VarianceItemEntity[];
  statusIdHistoryList: StatusHistoryEntry[];
}

/** One row of the inventory item collection: one per (facility, product, lot, packing). */
export interface InventoryRow {
  inventoryItemId: string;
  inventoryItemUrl: string;
  facilityUrl: string;
  productId: string;
  productUrl: string;
  quantityOnHand: number;
  quantityReserved: number;
  quantityOnOrder: number;
  lotId: string | null;
  normalizedPackingString: string | null;
}

/** An order as kept in the state dump: the entity plus its status history (served at orderHistoryListUrl). */
export type OrderState = OrderEntity & { statusIdHistoryList: StatusHistoryEntry[] };

/** Everything the sandbox holds for its account: `admin.state()`, and the shape of a `--data FILE.json`. */
export interface SandboxState {
  account: string;
  facilities: FacilityEntity[];
  products: ProductEntity[];
  orders: OrderState[];
  shipments: ShipmentEntity[];
  variances: VarianceEntity[];
  inventory: InventoryRow[];
}
