import type { FetchErrorCode } from '../fetch/errors.js';

import { FILE_STATUSES, type FileStatus } from '../../schemas/tables.js';
import type { SellersStatus } from '../parse/sellers/types.js';
import type { BuyersStatus } from '../parse/buyers/types.js';

export { FILE_STATUSES, type FileStatus };

/**
 * How a fetch outcome and a parse summary become a `files` row's `status` and `valid`, one pure
 * function per file kind (contract §3). The status says what the content was; how it was
 * obtained (fetched, revalidated, reused, carried forward) is `files.obtained` and changes
 * neither. Every caller (the crawl's jobs, `reparse`) decides through these functions.
 */
export interface ContentVerdict {
  status: FileStatus;
  valid: boolean;
}

/** The fetch layer's redirect error codes (typed, so this list cannot drift from src/fetch/errors.ts). */
const REDIRECT_ERRORS: ReadonlySet<string> = new Set<FetchErrorCode>(['redirect_scope', 'redirect_loop', 'redirect_limit', 'redirect_invalid']);

/** Status of a fetch that produced no body to parse, or null when a 2xx body was read. */
export function statusFromFetch(status: number | null, error: string | null): FileStatus | null {
  if (error !== null) {
    if (REDIRECT_ERRORS.has(error)) return 'redirect_error';
    if (error === 'too_large') return 'too_large';
    if (error === 'challenge') return 'blocked'; // a bot wall's page (src/fetch/challenge.ts), whatever its status
    if (status === null) return 'unreachable';
  }
  if (status === null) return 'unreachable';
  if (status >= 200 && status < 300) return null;
  if (status === 404) return 'not_found'; // ads.txt 1.1 §3.1
  if (status === 401 || status === 403) return 'unauthorized';
  // RFC 9110 §15.5.3, used by pay per crawl (Cloudflare, 2025): consent at a price, not a refusal.
  if (status === 402) return 'payment_required';
  if (status === 429) return 'rate_limited'; // RFC 6585 §4
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

/**
 * The statuses of an ads.txt / app-ads.txt whose 2xx body was a text file, not an HTML page:
 * every status adsFileStatus gives but `html`. Their records are stored (an `invalid_content_type`
 * file's too, so that strictness can be measured; a `too_large` file's as far as the cap). The
 * figures' *declaring* site reads this list (sql/views.sql's vocabulary block is generated from it).
 */
export const ADS_TEXT_STATUSES = ['ok', 'placeholder', 'empty', 'invalid_content_type', 'too_large'] as const satisfies readonly FileStatus[];

/** The statuses of a sellers.json read whole and valid (sellersFileStatus's `valid`): a *readable* sellers.json. */
export const READABLE_SELLERS_STATUSES = ['ok'] as const satisfies readonly FileStatus[];

/**
 * The statuses that say what an ads.txt / app-ads.txt held on its night: its whole content was
 * seen (whatever it was), or a 404 said there is none. A cut file, a wall, a 429, a 5xx or a
 * network failure say nothing certain (the series views compare observations only).
 */
export const ADS_OBSERVED_STATUSES = ['ok', 'placeholder', 'empty', 'html', 'invalid_content_type', 'not_found'] as const satisfies readonly FileStatus[];

/**
 * The same for a sellers.json: read whole and valid, or a 404. One that was not JSON or not a
 * sellers.json (often a page cut or replaced for a night) says nothing of the sellers it lists.
 */
export const SELLERS_OBSERVED_STATUSES = [...READABLE_SELLERS_STATUSES, 'not_found'] as const satisfies readonly FileStatus[];

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
export function adsFileStatus(p: ParsedStatusInput): ContentVerdict {
  if (p.truncated) return { status: 'too_large', valid: false };
  if (p.parseStatus === 'html') return { status: 'html', valid: false };
  if (!isTextPlain(p.contentType)) return { status: 'invalid_content_type', valid: false };
  if (p.parseStatus === 'placeholder') return { status: 'placeholder', valid: true }; // §3.2.1: valid, authorizes nobody
  if (p.parseStatus === 'empty') return { status: 'empty', valid: false };
  return { status: 'ok', valid: p.records > 0 || p.variables > 0 };
}

/**
 * robots.txt (RFC 9309 §2.3.1): a 2xx body is a robots.txt, parsed as far as the 500 KiB cap
 * (§2.5). It is `ok` and valid unless it was cut at the cap (`too_large`: its first part still
 * sets the policy) or is an HTML page (`html`: a soft 404 that declares no rule).
 */
export function robotsFileStatus(p: { truncated: boolean; html: boolean }): ContentVerdict {
  if (p.truncated) return { status: 'too_large', valid: false };
  if (p.html) return { status: 'html', valid: false };
  return { status: 'ok', valid: true };
}

/**
 * sellers.json (IAB sellers.json 1.0), and buyers.json 1.0 by the same rules: the parser's verdict
 * on a 2xx body; a cut body is `too_large`.
 */
export function sellersFileStatus(p: { parseStatus: SellersStatus | BuyersStatus; truncated: boolean }): ContentVerdict {
  if (p.truncated) return { status: 'too_large', valid: false };
  return { status: p.parseStatus, valid: p.parseStatus === 'ok' };
}
