import { performance } from 'node:perf_hooks';
import type { BodyRead } from './answer-body.js';
import { headerValue, type HopAnswer } from './hop.js';
import type { FetchOutcome, FetchRequest, FetchRow } from './types.js';

/**
 * One chain's result, made once from the policies' answer and the body read: its `fetches` row,
 * and from the row the caller's outcome (`outcomeOf`), so the two cannot disagree.
 */

/** Where a chain began: its request, the URL it asked for (normalised when it parsed) and when. */
export interface ChainStart {
  readonly req: FetchRequest;
  readonly url: string;
  /** ASCII host of `url`; null when it did not parse. */
  readonly host: string | null;
  readonly startedAt: Date;
  /** performance.now() at the start, for the duration. */
  readonly t0: number;
}

export interface ChainResult<T> {
  row: FetchRow;
  read: BodyRead<T>;
  cacheControl: string | null;
  expires: string | null;
  notModified: boolean;
}

/** The row and outcome fields of a chain; `answer` is null when no request was made (a bad URL). */
export function chainResult<T>(start: ChainStart, answer: HopAnswer | null, read: BodyRead<T>): ChainResult<T> {
  const h = answer?.headers ?? null;
  const error = read.error ?? answer?.error ?? null;
  const v = start.req.validators;
  const row: FetchRow = {
    url: start.url,
    host: start.host,
    subject: start.req.subject,
    file_kind: start.req.kind,
    status_code: answer?.status ?? null,
    final_url: answer?.url.href ?? null,
    redirects: answer?.redirects ?? [],
    content_type: headerValue(h, 'content-type'),
    bytes: read.bytes,
    truncated: read.truncated,
    sha256: read.sha256,
    etag: headerValue(h, 'etag'),
    last_modified: headerValue(h, 'last-modified'),
    error,
    remote_ip: answer?.ip ?? null,
    attempts: answer?.attempts ?? 0,
    started_at: start.startedAt,
    duration_ms: Math.round(performance.now() - start.t0),
    // TDMRep §3.2: every response may carry the reservation; kept as served, read by site_ai_consent.
    tdm_reservation: headerValue(h, 'tdm-reservation'),
    tdm_policy: headerValue(h, 'tdm-policy'),
    // The page's usage signals (docs/reference/ai-signals.md): kept as served, read by reparse and the views.
    x_robots_tag: headerFields(h, 'x-robots-tag'),
    content_usage: headerValue(h, 'content-usage'),
    link: headerValue(h, 'link'),
    // Cloudflare pay per crawl: a 402's price, kept (nothing is paid).
    crawler_price: headerValue(h, 'crawler-price'),
  };
  return {
    row,
    read,
    cacheControl: headerValue(h, 'cache-control'),
    expires: headerValue(h, 'expires'),
    // RFC 9110 §15.4.5: a 304 answers our conditional request only when we made one.
    notModified: error === null && answer?.status === 304 && Boolean(v?.etag || v?.lastModified),
  };
}

/** Every field of a header as served, one element per field line (a scope such as `googlebot:` holds within its field only). */
function headerFields(h: HopAnswer['headers'] | null, name: string): string[] {
  const v = h?.[name];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

/** The caller's outcome: every chain's row, and the answer of the one used (the last). */
export function outcomeOf<T>(rows: FetchRow[], used: ChainResult<T>): FetchOutcome<T> {
  const { row, read } = used;
  return {
    rows,
    status: row.status_code,
    finalUrl: row.final_url,
    contentType: row.content_type,
    error: row.error,
    notModified: used.notModified,
    truncated: read.truncated,
    bytes: read.bytes,
    sha256: read.sha256,
    etag: row.etag,
    lastModified: row.last_modified,
    cacheControl: used.cacheControl,
    expires: used.expires,
    body: read.body,
  };
}
