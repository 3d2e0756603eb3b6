/** What `find` shows of a kind beyond its jobs (kept for the kinds' own rules; see src/ops/find.ts). */
export interface FindRule {
  /** Kinds of service entity this kind's jobs make, in the order `find` lists them. */
  entityKinds: readonly string[];
}
