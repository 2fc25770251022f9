/** The kinds of file the crawl fetches; each has its own redirect policy, byte cap and deadline. */
export type FetchKind = 'ads.txt' | 'app-ads.txt' | 'robots.txt' | 'sellers.json' | 'buyers.json' | 'store_page' | 'tdmrep.json' | 'llms.txt' | 'rsl' | 'home_page';
export const fetchKinds: readonly FetchKind[] = ['ads.txt', 'app-ads.txt', 'robots.txt', 'sellers.json', 'buyers.json', 'store_page', 'tdmrep.json', 'llms.txt', 'rsl', 'home_page'];

/**
 * What one request chain made: a `fetches` row (contract §3). The fetch layer knows no tables;
 * src/tables/rows.ts checks at compile time that this is exactly the table's row.
 */
export interface FetchRow {
  url: string;
  host: string | null;
  subject: string | null;
  file_kind: string | null;
  status_code: number | null;
  final_url: string | null;
  redirects: string[] | null;
  content_type: string | null;
  bytes: number | bigint | null;
  truncated: boolean | null;
  sha256: string | null;
  etag: string | null;
  last_modified: string | null;
  error: string | null;
  remote_ip: string | null;
  attempts: number | null;
  started_at: Date | null;
  duration_ms: number | null;
  tdm_reservation: string | null;
  tdm_policy: string | null;
  x_robots_tag: string[] | null;
  content_usage: string | null;
  link: string | null;
  crawler_price: string | null;
}

export interface Validators {
  /** ETag of the earlier copy; sent as If-None-Match. */
  etag?: string | null;
  /** Last-Modified of the earlier copy; sent as If-Modified-Since. */
  lastModified?: string | null;
}

export interface FetchRequest {
  /** Absolute http(s) URL. For ads.txt / app-ads.txt give the https:// URL; the HTTP fallback is automatic. */
  url: string;
  kind: FetchKind;
  /** Subject the request is made for (copied into the `fetches` row). */
  subject: string;
  /** Validators of an earlier copy: makes the request conditional (a 304 sets `notModified`). */
  validators?: Validators;
  /** Extra abort signal from the caller (e.g. the run is shutting down). */
  signal?: AbortSignal;
  /**
   * The caller is done with this host after this answer: ask the server to close the connection
   * (`Connection: close`) instead of keeping it idle. A crawl meets most hosts once, for
   * robots.txt and then one file; closing after the file frees the TLS connection's memory at
   * once on both sides instead of holding it for the keep-alive time.
   */
  closeConnection?: boolean;
}

/** What the body consumer learns about the response before reading it. */
export interface ResponseMeta {
  /** URL first requested for this answer (after any HTTPS→HTTP fallback). */
  url: string;
  /** URL of the response whose body this is (after redirects). */
  finalUrl: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  contentType: string | null;
  /** The byte cap applying to this body (after decompression). */
  maxBytes: number;
  /**
   * When the whole-request deadline fires, on `performance.now()`'s clock. Its timer cannot fire
   * while a consumer parses synchronously, so a consumer doing heavy work per chunk (store pages)
   * checks it between chunks and gives up with FetchFailure('timeout').
   */
  deadlineAt: number;
}

/** Reads the (decompressed, capped) body. Stopping early aborts the transfer. */
export type BodyConsumer<T> = (body: AsyncIterable<Uint8Array>, meta: ResponseMeta) => Promise<T>;

export interface FetchOutcome<T> {
  /** One row per request chain made (the HTTPS try and its HTTP fallback are two rows). */
  rows: FetchRow[];
  /** Final HTTP status of the answer used; null when no HTTP answer was had. */
  status: number | null;
  finalUrl: string | null;
  contentType: string | null;
  /** Stable error code (see errors.ts) or null. */
  error: string | null;
  /** The server answered 304 to our conditional request: the earlier copy is still current. */
  notModified: boolean;
  /** The body went past the kind's byte cap and was cut (error is then `too_large`). */
  truncated: boolean;
  /** Body bytes read, after decompression. */
  bytes: number;
  /** Hex sha256 of the bytes read, null when no body was read. */
  sha256: string | null;
  etag: string | null;
  lastModified: string | null;
  cacheControl: string | null;
  expires: string | null;
  /** Whatever `consume` returned; consume is called only for a 2xx final answer. */
  body: T | null;
}
