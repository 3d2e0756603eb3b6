/**
 * A transform (TRANSFORMS, docs/transforms.md): turns one payload in the upstream's own shape (a webhook's body, a
 * line of a file, a CSV row keyed by its header) into zero or more records of the stream's shape. A built-in one is
 * declared by its kind (its `record.transforms`); an operator's is the default export of an ES module.
 *
 * It returns a record, an array of records, or null (nothing to sync in this payload); it throws (or returns
 * something that is not a record) for a payload it cannot turn into records, which then fails as a bad record
 * naming the payload's upstream id and the reason. It may be async.
 */
export type TransformFn = (payload: unknown, context: TransformContext) => unknown;

/** What a transform is told beside the payload. */
export interface TransformContext {
  /** The stream the records are for. */
  stream: string;
  /** The payload's id upstream: a webhook's id, or `file:line` for a file. */
  upstreamId: string;
}

/**
 * What one upstream payload becomes: records to check and queue as any other (with the payload they came from),
 * or a problem: a payload the transform could not turn into records, queued as a bad record that fails at once.
 */
export type TransformEntry =
  { record: unknown; upstreamId: string; upstream?: string } | { problem: string; upstreamId: string; upstream: string };
