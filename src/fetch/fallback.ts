import { NO_ANSWER_CODES } from './errors.js';
import type { FetchKind, FetchRow } from './types.js';

/**
 * HTTPS first, HTTP when HTTPS gave no HTTP answer: ads.txt 1.1 §3.1 and app-ads.txt 1.0 for
 * their files; robots.txt too, since RFC 9309 §2.3 scopes a robots.txt to its scheme, so a site
 * reached over HTTP after HTTPS failed is governed by its http:// robots.txt. Each try is its own
 * chain and its own `fetches` row. The consent files (--ai-signals) follow the site's files: a site
 * served over HTTP only still speaks.
 */
export const HTTP_FALLBACK: ReadonlySet<FetchKind> = new Set(['ads.txt', 'app-ads.txt', 'robots.txt', 'tdmrep.json', 'llms.txt', 'rsl', 'home_page']);

/**
 * The http:// URL to try after the chain `first`, or null when none is tried. spec-decisions:
 * only when HTTPS could not give an HTTP answer (connect refused, TLS failure, timeout, reset,
 * `NO_ANSWER_CODES`). A DNS failure or a blocked address would be the same over HTTP; an HTTPS
 * 404 is an answer, and so is a redirect.
 */
export function fallbackUrl(kind: FetchKind, first: FetchRow): string | null {
  if (!HTTP_FALLBACK.has(kind) || !first.url.startsWith('https:')) return null;
  if (first.status_code !== null || (first.redirects?.length ?? 0) > 0 || !NO_ANSWER_CODES.has(first.error ?? '')) return null;
  const url = new URL(first.url);
  url.protocol = 'http:';
  if (url.port === '443') url.port = '';
  return url.href;
}
