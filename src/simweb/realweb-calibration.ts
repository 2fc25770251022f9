/**
 * The HTTP side of the real web's mix (`simweb --realweb`), beside calibration.ts (the
 * synthetic files) and the DNS side there (name failures, CDN sharing, SYN-dead addresses). Each
 * share names its source: the shared corpus where it can tell, else the assumption made.
 * Shares are of listed sites (a site's hosts share its fate).
 */

/**
 * Bot walls. robots/ in the shared corpus holds 11 interstitial pages of distinct sites among
 * 4,958 first captures (0.22 %), each captured as the site's robots.txt, so each answered 200:
 * Cloudflare 4, DataDome 2, Imperva 5. Walls that answer 403/503 leave nothing to capture, so
 * that is a lower bound. Assumption: 2 % of listed sites show a non-browser client a wall on
 * /ads.txt and /robots.txt; the vendor split follows the corpus counts, with Akamai and AWS WAF
 * (no capture in the corpus) given small shares so that each detection path is exercised.
 */
export const WALL_SHARE = 0.02;
export const WALL_VENDOR_WEIGHTS = { cloudflare: 0.35, imperva: 0.3, datadome: 0.15, akamai: 0.12, aws_waf: 0.08 } as const;
/** Assumption (no capture in the corpus answers 429): 0.5 % of sites rate-limit a crawler on sight, with Retry-After 1–3 s. */
export const RATE_LIMITED_SHARE = 0.005;
export const RETRY_AFTER_S = { min: 1, max: 3 } as const;
/**
 * Hosts that accept a connection and never answer (the headers deadline path; hosts that never
 * answer the SYN are the DNS side's SYN-dead addresses). Assumption: 1 %.
 */
export const STALL_SHARE = 0.01;
/** Slow answers: 3 % of sites answer every request after 1–6 s (assumption: overloaded shared hosting). */
export const SLOW_SHARE = 0.03;
export const SLOW_MS = { min: 1000, max: 6000 } as const;

/**
 * Variety of a served /ads.txt (assumption; the corpus keeps bodies, not transport details):
 * HTTP/1.0 answers delimited by closing the connection, `br` and `deflate` encodings (RFC 9110
 * §8.4.1), a Latin-1 body declared in Content-Type, a UTF-16 body with a BOM, and redirects to
 * another path of the same host by a relative or a protocol-relative `Location` (RFC 9110
 * §10.2.2: a URI-reference, resolved against the request's URL).
 */
export const VARIETY_WEIGHTS = {
  http10: 0.005,
  br: 0.03,
  deflate: 0.005,
  latin1: 0.01,
  utf16_bom: 0.003,
  relative_location: 0.01,
  protocol_relative_location: 0.005,
} as const;
