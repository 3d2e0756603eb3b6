/** What one synced record did to one (location, product)'s stock on hand: the stock reconcile nets it out. */
export interface StockEffect {
  /** The record's business key, and its stream. */
  key: string;
  stream: string;
  facilityUrl: string;
  productUrl: string;
  /** Change of the on-hand quantity: negative for a shipment or a write-off. */
  quantity: number;
  /** When the record's job finished (epoch ms): effects before a count's stock was read are in the count. */
  at: number;
}
