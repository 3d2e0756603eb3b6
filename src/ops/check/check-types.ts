import type { FacilityKind } from '../../records/record-references.js';
import type { StreamName } from '../../records/stream-name.js';

/** A part that could not be checked: a stable code, the HTTP status when there was one, and what to do. */
export interface CheckProblem {
  /** e.g. SERVICE_UNAUTHORIZED, SERVICE_NO_ACCOUNT, FEED_FORBIDDEN (check-problems.ts). */
  code: string;
  status?: number;
  message: string;
  hint: string;
}

/** One magazine and its locations. */
export interface MagazineNode {
  name: string;
  url: string;
  locations: Array<{ name: string; url: string }>;
}

export interface ServiceCheck {
  baseUrl: string;
  account: string;
  /** ok; unreachable (no answer, 5xx, 429 past its wait); or refusing (401, 403, 404 on the account). */
  state: 'ok' | 'unreachable' | 'refusing';
  problem: CheckProblem | null;
  /** Present when the service answered. */
  facilities: {
    magazines: number;
    locations: number;
    tree: MagazineNode[];
    /** Locations whose parent is not a facility of the account. */
    orphans: Array<{ name: string; url: string; parentUrl: string }>;
  } | null;
  products: {
    count: number;
    active: number;
    inactive: number;
    /** Products whose URL's id differs from their productId (looked up, never built: docs/service.md). */
    urlDiffers: number;
    /** A few of them, productId -> productUrl. */
    urlExamples: Array<{ productId: string; productUrl: string }>;
  } | null;
  /** X-RateLimit-* headers of the last answer that sent any (null: none sent), beside the configured budgets. */
  rateLimit: {
    sent: Record<string, string> | null;
    budgets: { postPerMinute: number; getPerMinute: number; collectionPerHour: number; requestsPerMinute: number | null };
  };
}

export interface RedisCheck {
  /** Where (no password). */
  at: string;
  mode: 'single' | 'cluster';
  version: string | null;
  maxmemoryPolicy: string | null;
  /** Why the policy is a risk (null: noeviction). */
  warning: string | null;
  prefix: string;
  /** Per stream: jobs not yet finished (waiting, active, delayed, prioritized), failed ones, and import batches waiting. */
  queued: Array<{ stream: StreamName; pending: number; failed: number; batches: number }>;
  /** Sum of pending jobs and import batches over the streams. */
  pendingTotal: number;
}

/** A record of a first page that does not match its stream's shape. */
export interface BadRecord {
  /** Its business key, line or job id: how operators find it. */
  record: string;
  problems: string[];
}

export interface FeedStreamCheck {
  stream: StreamName;
  /** The stored cursor the page was read from (null: the stream's start). Never moved by check. */
  cursor: string | null;
  state: 'ok' | 'unreachable' | 'refusing';
  problem: CheckProblem | null;
  /** Records on the first page, and whether the feed has more after it. */
  records: number;
  hasMore: boolean | null;
  valid: number;
  bad: BadRecord[];
}

export interface FeedCheck {
  /** False when UPSTREAM_URL is not set: only imports feed the program. */
  configured: boolean;
  url: string | null;
  streams: FeedStreamCheck[];
}

/** A name the first pages use that the account lacks, or that names the wrong kind of facility. */
export interface MappingGap {
  what: 'product' | 'facility';
  /** As the records name it. */
  name: string;
  /** The service's name for it under MAPPING_FILE, when the mapping names it. */
  mappedTo?: string;
  problem: 'unknown' | 'ambiguous' | 'not-a-magazine' | 'not-a-location';
  /** For a facility: the kind the records need. */
  want: FacilityKind | null;
  /** Records that name it, over every stream, and those streams. */
  records: number;
  streams: StreamName[];
  /** A few of those records' keys. */
  examples: string[];
  /** For an ambiguous name, the facilities it could be; for a wrong kind, the one it is. */
  candidates: string[];
}

export type CheckVerdict = 'ready' | 'gaps' | 'unreachable';

/** What `check` reports: `--json` prints it as is. */
export interface CheckReport {
  at: string;
  verdict: CheckVerdict;
  /** 0 ready, 1 gaps found, 3 something unreachable or refusing. */
  exitCode: 0 | 1 | 3;
  service: ServiceCheck;
  redis: RedisCheck;
  feed: FeedCheck;
  /** Null when the service or the feed could not be read (nothing to compare). */
  gaps: MappingGap[] | null;
  /** Products and facilities the mapping (MAPPING_FILE) names otherwise, as the records name them, with how many records do. */
  mapped: Array<{ what: 'product' | 'facility'; name: string; to: string; records: number }>;
  /** Warnings that do not stop a run (eviction policy, jobs already queued, bad records, no feed configured). */
  warnings: string[];
  /** Reads the service part sent (the catalog adds its own two when its cached copy is missing or a name missed). */
  serviceCalls: number;
}
