import { z } from 'zod';
import { perStream, type StreamName } from '../../jobs/streams.js';

/** Records of the upstream feed (shared/upstream-feed.md), checked as they arrive and again when a job starts. */

const naiveDateTime = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?$/, 'must be a local date-time YYYY-MM-DDTHH:MM:SS');
const businessDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d), 'is not a real calendar date');
/**
 * Longest ids and names, in characters (docs/operations.md, "Caps on input"): orderId is the feed's own rule
 * (upstream-feed.md); the others are generous for what they name and keep job ids, log lines and service requests
 * of one record bounded.
 */
export const MAX_CHARS = { orderId: 60, countId: 120, productId: 100, shipmentIdUser: 100, name: 255 } as const;

const text = (max: number) =>
  z.string({ error: 'is required' }).trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);
const name = text(MAX_CHARS.name);
const productId = text(MAX_CHARS.productId);

export const orderLineSchema = z.object({
  productId,
  quantity: z.number({ error: 'must be a number' }).positive('must be greater than 0'),
  unitPrice: z.number({ error: 'must be a number' }).min(0, 'must be 0 or more'),
  location: name,
});

export const orderRecordSchema = z.object({
  // The orderId names the order's URL (/api/order/<orderId>): "." and ".." would name another one.
  orderId: text(MAX_CHARS.orderId).refine((id) => id !== '.' && id !== '..', 'must not be "." or ".."'),
  orderDate: naiveDateTime.optional(),
  origin: name,
  lines: z.array(orderLineSchema, { error: 'is required' }).min(1, 'must have at least one line'),
  shipmentIdUser: text(MAX_CHARS.shipmentIdUser).optional(),
});

export const stockCountRecordSchema = z.object({
  countId: text(MAX_CHARS.countId),
  location: name,
  countDate: businessDate,
  items: z
    .array(
      z.object({
        productId,
        quantity: z.number({ error: 'must be a number' }).min(0, 'must be 0 or more'),
      }),
      { error: 'is required' },
    )
    .min(1, 'must have at least one item'),
});

export const bomRecordSchema = z.object({
  productId,
  components: z
    .array(z.object({ productId, quantity: z.number({ error: 'must be a number' }).positive('must be greater than 0') }), {
      error: 'is required',
    })
    .min(1, 'must have at least one component'),
});

export type OrderRecord = z.infer<typeof orderRecordSchema>;
export type OrderLine = z.infer<typeof orderLineSchema>;
export type StockCountRecord = z.infer<typeof stockCountRecordSchema>;
export type BomRecord = z.infer<typeof bomRecordSchema>;

export const recordSchemas = {
  orders: orderRecordSchema,
  'stock-counts': stockCountRecordSchema,
  boms: bomRecordSchema,
} as const satisfies Record<StreamName, unknown>;

/** The field of a record that names it: orderId, countId, productId. */
export const recordKeyField: Record<StreamName, string> = perStream((d) => d.keyField);

/** The business key of a raw record, when it has a usable one. */
export function recordKey(stream: StreamName, raw: unknown): string | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const v = (raw as Record<string, unknown>)[recordKeyField[stream]];
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

export interface RecordProblem {
  /** Dotted path of the field, e.g. lines.0.quantity. */
  field: string;
  reason: string;
}

/** Checks a raw record; answers the record or every problem as "field: reason". */
export function checkRecord<S extends StreamName>(
  stream: S,
  raw: unknown,
): { ok: true; record: z.infer<(typeof recordSchemas)[S]> } | { ok: false; problems: RecordProblem[] } {
  const parsed = recordSchemas[stream].safeParse(raw);
  if (parsed.success) return { ok: true, record: parsed.data as z.infer<(typeof recordSchemas)[S]> };
  return { ok: false, problems: problemsOf(parsed.error) };
}

/** Every problem of a failed check, as field and reason. */
export function problemsOf(error: z.ZodError): RecordProblem[] {
  return error.issues.map((i) => ({ field: i.path.map(String).join('.') || '(record)', reason: i.message }));
}
