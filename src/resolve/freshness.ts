/**
 * How long fetched data stays usable: freshness from HTTP caching headers (ads.txt 1.1 §3.6,
 * RFC 9309 §2.4, RFC 9111 §4.2) and how long an earlier copy may be carried forward when a new
 * fetch fails (ads.txt 1.1 §3.1, RFC 9309 §2.3.1.4). Pure functions: time is always passed in.
 */

export type FreshnessKind = 'ads.txt' | 'app-ads.txt' | 'robots.txt' | 'sellers.json' | 'buyers.json' | 'store_page' | 'tdmrep.json' | 'llms.txt' | 'rsl' | 'home_page';

export interface CacheHeaders {
  cacheControl: string | null;
  expires: string | null;
}

const SECOND = 1000;
const HOUR = 3600 * SECOND;
const DAY = 24 * HOUR;

/** ads.txt 1.1 §3.6: without cache-control directives, data expires after 7 days. */
export const DEFAULT_FRESHNESS_MS = 7 * DAY;
/** RFC 9309 §2.4: a cached robots.txt SHOULD NOT be used for more than 24 hours. */
export const ROBOTS_MAX_FRESHNESS_MS = DAY;
/** spec-decisions "App store pages": crawl a store URL at most weekly. */
export const STORE_PAGE_FRESHNESS_MS = 7 * DAY;
/**
 * RFC 9309 §2.3.1.4: a robots.txt unreachable "for a reasonably long period of time (for example,
 * 30 days)" may then be treated as unavailable; until then the cached copy stands in for it.
 */
export const ROBOTS_UNREACHABLE_CARRY_MS = 30 * DAY;
/**
 * Project choice: header-declared lifetimes are capped at one year (RFC 2616 §14.21 told servers
 * not to send Expires more than a year ahead), so a typo'd header cannot freeze data for decades.
 */
export const MAX_FRESHNESS_MS = 365 * DAY;
/** RFC 9111 §1.2.2: delta-seconds too large to represent are taken as 2^31. */
const MAX_DELTA_SECONDS = 2 ** 31;

/**
 * Until when data fetched at `fetchedAt` is fresh. A result equal to `fetchedAt` means "fresh for
 * 0": revalidate before any reuse.
 */
export function freshUntil(kind: FreshnessKind, fetchedAt: Date, headers: CacheHeaders): Date {
  const t = fetchedAt.getTime();
  // spec-decisions: store pages are crawled at most weekly, whatever their (usually no-cache) headers.
  if (kind === 'store_page') return new Date(t + STORE_PAGE_FRESHNESS_MS);
  const declared = headerLifetimeMs(headers, t);
  if (kind === 'robots.txt') {
    // RFC 9309 §2.4: MAY use RFC 9111 cache control, SHOULD NOT use the copy beyond 24 hours;
    // with no usable header the full 24 hours.
    return new Date(t + Math.min(declared ?? ROBOTS_MAX_FRESHNESS_MS, ROBOTS_MAX_FRESHNESS_MS));
  }
  // ads.txt 1.1 §3.6 (and the same rule for app-ads.txt and sellers.json): honour Cache-Control /
  // Expires; without cache-control directives the default expiry is 7 days.
  return new Date(t + (declared ?? DEFAULT_FRESHNESS_MS));
}

/**
 * Until when a 404 (no file) fetched at `fetchedAt` stands as the answer: its headers' lifetime
 * like any response (RFC 9111 §4.2.2), but never longer than the kind's default (7 days; 24 h for
 * robots.txt). A blanket `max-age=31536000` on a CDN's error pages must not hide a file that the
 * site publishes next week.
 */
export function absentFreshUntil(kind: FreshnessKind, fetchedAt: Date, headers: CacheHeaders): Date {
  const declared = freshUntil(kind, fetchedAt, headers);
  const byDefault = freshUntil(kind, fetchedAt, { cacheControl: null, expires: null });
  return declared.getTime() < byDefault.getTime() ? declared : byDefault;
}

/**
 * Freshness lifetime in ms declared by the headers, or null when they declare none usable.
 * RFC 9111 §4.2.1: max-age wins over Expires; s-maxage is for shared caches only (we are a
 * private client), so it is ignored.
 */
export function headerLifetimeMs(headers: CacheHeaders, fetchedAtMs: number): number | null {
  const cc = headers.cacheControl ? parseCacheControl(headers.cacheControl) : null;
  if (cc) {
    // RFC 9111 §5.2.2.5 no-store; §5.2.2.4 no-cache without field names: never reuse unvalidated.
    if (cc.has('no-store')) return 0;
    if (cc.has('no-cache') && !cc.get('no-cache')) return 0;
    const maxAge = cc.get('max-age');
    if (maxAge !== undefined && maxAge !== null) {
      const seconds = parseDeltaSeconds(maxAge);
      if (seconds !== null) return Math.min(seconds * SECOND, MAX_FRESHNESS_MS);
      // An unparseable max-age is ignored (brief: invalid values never decide), falling to Expires.
    }
  }
  if (headers.expires) {
    const at = parseHttpDate(headers.expires, fetchedAtMs);
    // Deviation from RFC 9111 §5.3 (invalid Expires = already expired): an unparseable date is
    // ignored and the spec default applies, as if no directive had been sent (ads.txt 1.1 §3.6).
    if (at !== null) return Math.min(Math.max(0, at - fetchedAtMs), MAX_FRESHNESS_MS);
  }
  return null;
}

/**
 * RFC 9111 §5.2: Cache-Control is a comma-separated list of `token[=(token|quoted-string)]`.
 * Names are case-insensitive; the first occurrence of a repeated directive is used (§4.2.1).
 * Values are unquoted; a directive without a value maps to null.
 */
export function parseCacheControl(value: string): Map<string, string | null> {
  const out = new Map<string, string | null>();
  let i = 0;
  const n = value.length;
  while (i < n) {
    while (i < n && (value[i] === ',' || value[i] === ' ' || value[i] === '\t')) i++;
    let j = i;
    while (j < n && value[j] !== '=' && value[j] !== ',') j++;
    const name = value.slice(i, j).trim().toLowerCase();
    let arg: string | null = null;
    i = j;
    if (i < n && value[i] === '=') {
      i++;
      while (i < n && (value[i] === ' ' || value[i] === '\t')) i++;
      if (value[i] === '"') {
        let s = '';
        i++;
        while (i < n && value[i] !== '"') {
          if (value[i] === '\\' && i + 1 < n) i++; // quoted-pair
          s += value[i];
          i++;
        }
        i++; // closing quote (or end)
        arg = s;
        while (i < n && value[i] !== ',') i++; // junk after the quoted string
      } else {
        let k = i;
        while (k < n && value[k] !== ',') k++;
        arg = value.slice(i, k).trim();
        i = k;
      }
    }
    if (name !== '' && !out.has(name)) out.set(name, arg);
  }
  return out;
}

/** RFC 9111 §1.2.2 delta-seconds: digits only; overflow saturates at 2^31. */
function parseDeltaSeconds(s: string): number | null {
  if (!/^\d+$/.test(s)) return null;
  const v = Number(s);
  return v > MAX_DELTA_SECONDS ? MAX_DELTA_SECONDS : v;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
// RFC 9110 §5.6.7: IMF-fixdate, and the obsolete RFC 850 and asctime forms recipients must accept.
const IMF_FIXDATE = /^[a-z]{3},\s*(\d{1,2})\s+([a-z]{3})\s+(\d{4})\s+(\d{2}):(\d{2}):(\d{2})\s+gmt$/i;
const RFC850_DATE = /^[a-z]{6,9},\s*(\d{1,2})-([a-z]{3})-(\d{2})\s+(\d{2}):(\d{2}):(\d{2})\s+gmt$/i;
const ASCTIME_DATE = /^[a-z]{3}\s+([a-z]{3})\s+(\d{1,2})\s+(\d{2}):(\d{2}):(\d{2})\s+(\d{4})$/i;

/**
 * Parses an HTTP-date (RFC 9110 §5.6.7) to epoch ms, or null when it is none of the three forms
 * or names an impossible date. `Date.parse` is not used: it accepts "0", local times and more.
 * `referenceMs` (when the header was received) resolves two-digit RFC 850 years.
 */
export function parseHttpDate(value: string, referenceMs: number): number | null {
  const s = value.trim();
  let m = IMF_FIXDATE.exec(s);
  if (m) return utc(Number(m[3]), m[2]!, Number(m[1]), m[4]!, m[5]!, m[6]!);
  m = RFC850_DATE.exec(s);
  if (m) {
    // RFC 9110 §5.6.7: a two-digit year more than 50 years ahead is in the previous century.
    const yy = Number(m[3]);
    const thisYear = new Date(referenceMs).getUTCFullYear();
    let year = 2000 + yy;
    if (year > thisYear + 50) year -= 100;
    return utc(year, m[2]!, Number(m[1]), m[4]!, m[5]!, m[6]!);
  }
  m = ASCTIME_DATE.exec(s);
  if (m) return utc(Number(m[6]), m[1]!, Number(m[2]), m[3]!, m[4]!, m[5]!);
  return null;
}

function utc(year: number, mon: string, day: number, hh: string, mm: string, ss: string): number | null {
  const month = MONTHS.indexOf(mon.toLowerCase());
  const h = Number(hh);
  const mi = Number(mm);
  const se = Number(ss);
  if (month < 0 || h > 23 || mi > 59 || se > 60) return null;
  const ms = Date.UTC(year, month, day, h, mi, Math.min(se, 59));
  // Reject day overflow (31 Feb rolls into March in Date.UTC).
  return new Date(ms).getUTCDate() === day ? ms : null;
}

/** What the failed fetch answered: the `files.status` it would get, and its HTTP status. */
export interface FetchFailure {
  status: string;
  httpStatus: number | null;
}

export interface CarryForwardOptions {
  /** Why the new fetch failed. @default { status: 'unreachable', httpStatus: null } */
  failure?: FetchFailure;
  /** The earlier copy's `fresh_until`, when known (header-declared lifetime). */
  earlierFreshUntil?: Date | null;
}

// ads.txt 1.1 §3.1: "other HTTP errors" at a URL that had data → use the last good data set. A 404
// says there is no file (§3.1), a 2xx is an answer to be parsed, and a robots.txt verdict that we
// chose to obey means no fetch was wanted; none of these reuse the earlier copy. A bot wall (`blocked`) and a
// 429 (`rate_limited`) are such other errors: the file was not refused, only not shown to us tonight.
const ADS_CARRY_STATUSES = new Set(['unauthorized', 'blocked', 'rate_limited', 'http_error', 'redirect_error', 'unreachable', 'too_large']);

/**
 * Until when an earlier copy fetched at `earlierFetchedAt` may stand in for a failed fetch, or
 * null when this failure must not reuse it at all.
 */
export function carryForwardUntil(kind: FreshnessKind, earlierFetchedAt: Date, options: CarryForwardOptions = {}): Date | null {
  const failure = options.failure ?? { status: 'unreachable', httpStatus: null };
  const t = earlierFetchedAt.getTime();
  if (kind === 'robots.txt') {
    // RFC 9309 §2.4: no cached copy beyond 24 h "unless the robots.txt file is unreachable";
    // §2.3.1.4: unreachable = server (5xx) or network errors, and after a reasonably long period
    // (e.g. 30 days) the crawler may stop using the cached copy. §2.3.1.3: a 4xx (or too many
    // redirects, §2.3.1.2) is an answer — "unavailable", allow all — so nothing is carried.
    const unreachable = failure.status === 'unreachable' || (failure.httpStatus !== null && failure.httpStatus >= 500 && failure.httpStatus <= 599);
    return unreachable ? new Date(t + ROBOTS_UNREACHABLE_CARRY_MS) : null;
  }
  if (kind === 'store_page') {
    // spec-decisions: store pages are valid for a week; a 404/410 means the listing is gone.
    if (failure.status === 'not_found' || failure.httpStatus === 404 || failure.httpStatus === 410) return null;
    return new Date(t + STORE_PAGE_FRESHNESS_MS);
  }
  // ads.txt / app-ads.txt / sellers.json: ads.txt 1.1 §3.1 says use the last good data set on
  // errors, §3.6 bounds how long a copy may be used: its declared lifetime or 7 days. A short
  // declared lifetime (max-age=0) does not shorten the 7 days here: §3.1 prefers the last good
  // data to none once the fetch has failed.
  if (!ADS_CARRY_STATUSES.has(failure.status)) return null;
  const declared = options.earlierFreshUntil?.getTime() ?? -Infinity;
  return new Date(Math.max(t + DEFAULT_FRESHNESS_MS, declared));
}

/** Whether earlier data may be reused at `now` because the new fetch failed (see carryForwardUntil). */
export function carryForwardAllowed(kind: FreshnessKind, earlierFetchedAt: Date, now: Date, options: CarryForwardOptions = {}): boolean {
  const until = carryForwardUntil(kind, earlierFetchedAt, options);
  return until !== null && now.getTime() <= until.getTime();
}

/** Whether data is still fresh at `now` (no refetch needed); null freshness is never fresh. */
export function isFresh(freshUntilAt: Date | null, now: Date): boolean {
  return freshUntilAt !== null && now.getTime() < freshUntilAt.getTime();
}

/** Age of data fetched at `fetchedAt`, in days (files.age_days); never negative. */
export function ageDays(fetchedAt: Date, now: Date): number {
  return Math.max(0, now.getTime() - fetchedAt.getTime()) / DAY;
}
