import pRetry from 'p-retry';
import { request, type Dispatcher } from 'undici';
import { z } from 'zod';
import { defaults } from '../../config/defaults.js';
import type { StreamName } from '../records/stream-name.js';
import { PageTooLargeError, readFeedPage } from './page-reader.js';
import { messageOf } from '../errors/message-of.js';
import { SecretFile } from '../secrets/secret-file.js';
import { zodProblemText } from '../errors/zod-problems.js';

/** One page of a feed stream (docs/records.md); a record that could not be read is an UnreadableRecord in `items`. */
export const feedPageSchema = z.object({
  items: z.array(z.unknown(), { error: 'must be an array of records' }),
  cursor: z.string({ error: 'must be a string' }),
  hasMore: z.boolean({ error: 'must be true or false' }),
});
export type FeedPage = z.infer<typeof feedPageSchema>;

export type FeedErrorCode =
  'FEED_UNAUTHORIZED' | 'FEED_REFUSED' | 'FEED_UNAVAILABLE' | 'FEED_UNREACHABLE' | 'FEED_BAD_RESPONSE' | 'FEED_PAGE_TOO_LARGE';

/** A failed feed request. The message names the stream, the URL (without credentials) and what failed. */
export class FeedError extends Error {
  constructor(
    readonly code: FeedErrorCode,
    message: string,
    /** Whether asking again later can succeed. */
    readonly retryable: boolean,
    /** What to do about it, for the operator. */
    readonly hint: string,
    readonly status?: number,
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'FeedError';
  }
}

export interface UpstreamClientOptions {
  /** Base URL of the feed; pages are at `{url}/{stream}`. */
  url: string;
  /** Bearer token, when the feed wants one. Never written to an error or a log line. */
  token?: string;
  /** The file the token was read from (UPSTREAM_TOKEN_FILE): read again on a 401, and the page asked again when it changed. */
  tokenFile?: string;
  /** The token changed in its file (the logger learns it: it is a secret too). */
  onTokenChange?(token: string): void;
  /** The token's file could not be read again: a line naming the path. */
  onTokenProblem?(line: string): void;
  /** Time-out of one request (headers and body each), in ms. Default 30 000. */
  timeoutMs?: number;
  /** Retries of a page after a transient failure (network, 429, 5xx). Default 3. */
  retries?: number;
  /** First delay between two tries, in ms (doubles, randomized). Default 500. */
  minRetryDelayMs?: number;
  /** Longest delay between two tries, in ms. Default 5 000. */
  maxRetryDelayMs?: number;
  /** undici dispatcher (connection pool); default undici's global one. */
  dispatcher?: Dispatcher;
  /** Largest record in bytes; a larger one becomes a bad record of its own. Default defaults.maxRecordBytes. */
  maxRecordBytes?: number;
  /** Most bytes of records held from one page (FEED_PAGE_TOO_LARGE past it). Default defaults.feedMaxPageBytes. */
  maxPageBytes?: number;
}

export interface FetchPageOptions {
  /** Cursor of the previous page; none for the first request. */
  after?: string;
  limit: number;
  signal?: AbortSignal;
}

/** The URL as it may be shown: no user or password. */
function shownUrl(url: URL): string {
  const u = new URL(url);
  u.username = '';
  u.password = '';
  return u.toString();
}

/** HTTP pull of the upstream feed (`GET {url}/{stream}?after=&limit=`), zod-checked, with bounded retries. */
export class UpstreamClient {
  private readonly base: string;
  private readonly timeoutMs: number;
  private readonly token: SecretFile | undefined;

  constructor(private readonly opts: UpstreamClientOptions) {
    this.base = opts.url.replace(/\/+$/, '');
    this.timeoutMs = opts.timeoutMs ?? defaults.feedTimeoutMs;
    this.token = opts.token === undefined ? undefined : new SecretFile(opts.token, opts.tokenFile, opts.onTokenProblem);
  }

  /** One page of a stream; transient failures are retried, the rest thrown as FeedError. */
  fetchPage(stream: StreamName, o: FetchPageOptions): Promise<FeedPage> {
    return pRetry(() => this.fetchOnce(stream, o), {
      retries: this.opts.retries ?? 3,
      minTimeout: this.opts.minRetryDelayMs ?? defaults.feedRetryMinDelayMs,
      maxTimeout: this.opts.maxRetryDelayMs ?? defaults.feedRetryMaxDelayMs,
      randomize: true,
      signal: o.signal,
      shouldRetry: ({ error }) => error instanceof FeedError && error.retryable,
    });
  }

  /** One request of a page; a 401 reads UPSTREAM_TOKEN_FILE again and, when the token changed, asks once more at once. */
  private async fetchOnce(stream: StreamName, o: FetchPageOptions): Promise<FeedPage> {
    const sentWith = this.token?.value;
    try {
      return await this.fetchWithToken(stream, o);
    } catch (err) {
      if (!(err instanceof FeedError) || err.status !== 401 || !this.token) throw err;
      const changed = await this.token.reload();
      if (changed) this.opts.onTokenChange?.(this.token.value);
      if (!changed && this.token.value === sentWith) throw err;
      return this.fetchWithToken(stream, o);
    }
  }

  private async fetchWithToken(stream: StreamName, o: FetchPageOptions): Promise<FeedPage> {
    const url = new URL(`${this.base}/${encodeURIComponent(stream)}`);
    if (o.after !== undefined) url.searchParams.set('after', o.after);
    url.searchParams.set('limit', String(o.limit));
    const where = `feed ${stream} at ${shownUrl(url)}`;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.token?.value) headers.authorization = `Bearer ${this.token.value}`;

    let res: Dispatcher.ResponseData;
    try {
      res = await request(url, {
        method: 'GET',
        headers,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        signal: o.signal,
        dispatcher: this.opts.dispatcher,
      });
    } catch (err) {
      if (o.signal?.aborted) throw err;
      const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      throw new FeedError(
        'FEED_UNREACHABLE',
        `${where}: no answer (${why})`,
        true,
        'Check UPSTREAM_URL and that the feed is up; retried with backoff.',
        undefined,
        err,
      );
    }
    if (res.statusCode !== 200) throw await this.statusError(res, where);
    let json: unknown;
    try {
      json = await readFeedPage(res.body, {
        maxRecordBytes: this.opts.maxRecordBytes ?? defaults.maxRecordBytes,
        maxPageBytes: this.opts.maxPageBytes ?? defaults.feedMaxPageBytes,
      });
    } catch (err) {
      res.body.destroy();
      if (o.signal?.aborted) throw err;
      if (err instanceof PageTooLargeError) {
        throw new FeedError(
          'FEED_PAGE_TOO_LARGE',
          `${where}: page too large: ${err.message}`,
          false,
          'Asked again with a smaller limit; raise FEED_MAX_PAGE_BYTES or lower FEED_PAGE_SIZE if it recurs.',
          200,
          err,
        );
      }
      const why = messageOf(err);
      throw new FeedError(
        'FEED_BAD_RESPONSE',
        `${where}: answer is not a JSON page (${why})`,
        false,
        'The feed answered in an unexpected shape; check UPSTREAM_URL.',
        200,
        err,
      );
    }
    const parsed = feedPageSchema.safeParse(json);
    if (!parsed.success) {
      const problems = zodProblemText(parsed.error.issues, { whole: '(page)' });
      throw new FeedError(
        'FEED_BAD_RESPONSE',
        `${where}: page does not match { items, cursor, hasMore } (${problems})`,
        false,
        'The feed answered in an unexpected shape; check UPSTREAM_URL.',
        200,
      );
    }
    return parsed.data;
  }

  private async statusError(res: Dispatcher.ResponseData, where: string): Promise<FeedError> {
    const status = res.statusCode;
    // The body is shown for context only, shortened, and never with the token in it.
    let text = (await res.body.text().catch(() => '')).slice(0, 200).replace(/\s+/g, ' ').trim();
    if (this.token?.value) text = text.split(this.token.value).join('[REDACTED]');
    const said = text ? `: ${text}` : '';
    if (status === 401 || status === 403) {
      return new FeedError(
        'FEED_UNAUTHORIZED',
        `${where}: refused the credentials (HTTP ${status})${said}`,
        false,
        'Check UPSTREAM_TOKEN.',
        status,
      );
    }
    if (status === 429 || status >= 500) {
      return new FeedError(
        'FEED_UNAVAILABLE',
        `${where}: unavailable (HTTP ${status})${said}`,
        true,
        'The feed is busy or down; retried with backoff.',
        status,
      );
    }
    return new FeedError(
      'FEED_REFUSED',
      `${where}: refused the request (HTTP ${status})${said}`,
      false,
      'Check UPSTREAM_URL and the stream name.',
      status,
    );
  }
}
