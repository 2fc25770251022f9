import type { FetchErrorCode } from '../fetch/errors.js';

/**
 * How one fetch outcome and one parse summary become a `files` row's `status` and `valid`
 * (contract §3, spec-decisions "Fetching ads.txt / app-ads.txt").
 */
export type FileStatus =
  | 'ok'
  | 'placeholder'
  | 'empty'
  | 'html'
  | 'invalid_content_type'
  | 'not_found'
  | 'unauthorized'
  | 'http_error'
  | 'redirect_error'
  | 'too_large'
  | 'unreachable'
  | 'disallowed_by_robots'
  | 'carried_forward'
  | 'not_modified'
  // The earlier snapshot's copy, still fresh (ads.txt 1.1 §3.6; RFC 9309 §2.4), reused without a request.
  | 'cached';

/** The fetch layer's redirect error codes (typed, so this list cannot drift from src/fetch/errors.ts). */
const REDIRECT_ERRORS: ReadonlySet<string> = new Set<FetchErrorCode>(['redirect_scope', 'redirect_loop', 'redirect_limit', 'redirect_invalid']);

/** Status of a fetch that produced no body to parse, or null when a 2xx body was read. */
export function statusFromFetch(status: number | null, error: string | null): FileStatus | null {
  if (error !== null) {
    if (REDIRECT_ERRORS.has(error)) return 'redirect_error';
    if (error === 'too_large') return 'too_large';
    if (status === null) return 'unreachable';
  }
  if (status === null) return 'unreachable';
  if (status >= 200 && status < 300) return null;
  if (status === 404) return 'not_found'; // ads.txt 1.1 §3.1
  if (status === 401 || status === 403) return 'unauthorized';
  return 'http_error';
}

/**
 * ads.txt 1.1 §3.1: the file must be served as text/plain (parameters such as charset allowed).
 * A missing Content-Type is treated as not text/plain.
 */
export function isTextPlain(contentType: string | null): boolean {
  if (contentType === null) return false;
  const semi = contentType.indexOf(';');
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase() === 'text/plain';
}

export interface ParsedStatusInput {
  parseStatus: 'ok' | 'placeholder' | 'empty' | 'html';
  contentType: string | null;
  truncated: boolean;
  records: number;
  variables: number;
}

/**
 * Status and validity of a 2xx ads.txt / app-ads.txt body. Order matters: an HTML page is
 * `html` whatever its Content-Type; then a wrong Content-Type; then the parse result.
 * Records of an `invalid_content_type` file are still stored so strictness can be measured.
 */
export function adsFileStatus(p: ParsedStatusInput): { status: FileStatus; valid: boolean } {
  if (p.truncated) return { status: 'too_large', valid: false };
  if (p.parseStatus === 'html') return { status: 'html', valid: false };
  if (!isTextPlain(p.contentType)) return { status: 'invalid_content_type', valid: false };
  if (p.parseStatus === 'placeholder') return { status: 'placeholder', valid: true }; // §3.2.1: valid, authorizes nobody
  if (p.parseStatus === 'empty') return { status: 'empty', valid: false };
  return { status: 'ok', valid: p.records > 0 || p.variables > 0 };
}
