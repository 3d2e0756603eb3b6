/** Request classes, each with its own budget. A collection GET also spends one GET. */
export type RequestClass = 'get' | 'post' | 'collection';

/** One API call as seen by the client: what job traces, logs and metrics record. */
export interface ApiCall {
  method: 'GET' | 'POST';
  /** Path as sent, e.g. /acme/api/order/WEB-1 (never the credentials). */
  path: string;
  cls: RequestClass;
  /** HTTP status, or null when no answer came (network failure, time-out). */
  status: number | null;
  /** Time on the wire, in ms. */
  ms: number;
  /** Time spent waiting for budget before sending, in ms. */
  waitedMs: number;
  /** Error code when the call failed (ServiceErrorCode). */
  error?: string;
  /** Epoch ms when the call started. */
  at: number;
}

export interface CallOptions {
  /** Called once per HTTP request made (retried reads call it per try). */
  onCall?: (call: ApiCall) => void;
  /** Called with the head of every answer that arrived, whatever its status (check reads X-RateLimit-* from it). */
  onHeaders?: (headers: Readonly<Record<string, string | string[] | undefined>>) => void;
  signal?: AbortSignal;
  /** Retries of a failed read for this call (default: the client's `readRetries`); 0 sends it once (the outage probe). */
  retries?: number;
}
