import type { RedisConnection as Redis, RedisKeys } from '../redis/connection.js';

/** A service entity a record made or changed, before `find` says where it is known from. */
export interface EntityRef {
  /** What it is: order, shipment, variance, product, ... */
  kind: string;
  /** Its URL path as the service gave it. */
  url: string;
}

/** What Redis holds of a key's progress in one kind. */
export interface FoundProgress {
  /** Its name in `find --json`'s `progress` (order, count). */
  name: string;
  value: Record<string, unknown>;
  /** One line for people: "Order progress: completed". */
  line: string;
  /** The entities it names. */
  entities: EntityRef[];
  /** More of it as tables (an order's snapshots, its shipments), shown after the line. None: the line says it all. */
  sections?: FoundSection[];
}

/** A table of a key's progress, for people: a title, its column heads, and rows of text. */
export interface FoundSection {
  title: string;
  head: string[];
  rows: string[][];
}

/** What `find` shows of a kind beyond its jobs. */
export interface FindRule {
  /** Kinds of entity this kind's jobs make, in the order `find` lists them. */
  entityKinds: readonly string[];
  /** The entities a job's result details name. */
  entities(details: Record<string, unknown>): EntityRef[];
  /** The key's progress in Redis, when it has some. */
  progress?(redis: Redis, keys: RedisKeys, key: string): Promise<FoundProgress | undefined>;
}
