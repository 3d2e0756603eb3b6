/** A mapping file's lines as its readers (mapping-csv.ts, mapping-json.ts) give them, before mapping-file.ts checks them. */

/** One line of a mapping file as read, before its checks. `kind` as written (product, facility, or a JSON section). */
export interface MappingEntry {
  line: number;
  kind: string;
  upstream: string;
  service: string;
}

/** A problem of a mapping file at one line; `reason` never quotes a value the line did not give as a name. */
export interface MappingProblem {
  line: number;
  reason: string;
}
