/** The records of a chaos scenario that its parts share: the bad ones it plants and the good orders it expects. */
export interface BadRecord {
  stream: 'orders' | 'stock-counts' | 'boms';
  key: string;
  record: unknown;
  /** The field the failure must name (`line N` for a line that is not JSON). */
  field: string;
  /** How it is delivered. */
  via: 'feed' | 'import';
  /** Its job id when that is not the record's (a line that is not JSON is named by its line; raw bytes by their hash). */
  jobId?: string;
  /** For a poison record (raw bytes that cannot be read): the reason its failure must give. */
  poison?: string;
}

export interface OrderSpec {
  orderId: string;
  origin: string;
  lines: Array<{ productId: string; quantity: number; unitPrice: number; location: string }>;
}
