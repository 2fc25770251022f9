import type { FetchOutcome } from './types.js';

/**
 * What a fetch outcome means for each spec, so the crawl does not re-derive it.
 */

/** `files.status` values decided by the fetch alone (contract §3); null = a 2xx body to parse. */
export type AdsFetchStatus = 'not_found' | 'unauthorized' | 'http_error' | 'redirect_error' | 'too_large' | 'unreachable' | 'not_modified';

const REDIRECT_ERRORS = new Set(['redirect_scope', 'redirect_loop', 'redirect_limit', 'redirect_invalid']);

/**
 * ads.txt 1.1 §3.1 / spec-decisions: 404 → not_found; 401/403 → unauthorized; other non-2xx →
 * http_error; a redirect outside what the spec allows (or a loop, or > 10 hops) →
 * redirect_error; no HTTP answer → unreachable; 304 to our conditional request → not_modified.
 * A truncated 2xx body is `too_large`. Returns null for a 2xx body that should be parsed.
 */
export function adsFileStatus(o: Pick<FetchOutcome<unknown>, 'status' | 'error' | 'notModified' | 'truncated'>): AdsFetchStatus | null {
  if (o.error !== null && REDIRECT_ERRORS.has(o.error)) return 'redirect_error';
  if (o.notModified) return 'not_modified';
  if (o.status === null) return 'unreachable';
  if (o.status >= 200 && o.status <= 299) {
    if (o.truncated || o.error === 'too_large') return 'too_large';
    return o.error === null ? null : 'unreachable';
  }
  if (o.status === 404) return 'not_found';
  if (o.status === 401 || o.status === 403) return 'unauthorized';
  return 'http_error';
}

/** RFC 9309 §2.3.1 access result, as the `robots_verdicts.policy` column spells it. */
export type RobotsAccess = 'rules' | 'allow_all' | 'disallow_all';

/**
 * RFC 9309 §2.3.1: success → follow the rules (a body cut at the 500 KiB floor still gives
 * its rules, §2.5); more than five redirects → "unavailable" (§2.3.1.2); 4xx → unavailable,
 * allow all (§2.3.1.3); 5xx or network error → unreachable, disallow all (§2.3.1.4).
 */
export function robotsAccess(o: Pick<FetchOutcome<unknown>, 'status' | 'error'>): RobotsAccess {
  if (o.error === 'redirect_limit' || o.error === 'redirect_loop' || o.error === 'redirect_invalid') return 'allow_all';
  if (o.status === null) return 'disallow_all';
  if (o.status >= 200 && o.status <= 299) return o.error === null || o.error === 'too_large' ? 'rules' : 'disallow_all';
  if (o.status >= 400 && o.status <= 499) return 'allow_all';
  if (o.status >= 500) return 'disallow_all';
  // 1xx/3xx left unresolved (e.g. 300, 304 without validators): nothing usable, treat as unavailable.
  return 'allow_all';
}
