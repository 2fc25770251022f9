/**
 * Following sellers.json through intermediaries (IAB sellers.json 1.0, Seller object: an entry of
 * seller_type INTERMEDIARY or BOTH has as `domain` the domain of its own sellers.json). Round 0 is
 * the sellers.json of every ad system named by a kept record; round k the sellers.json of every
 * domain named by an INTERMEDIARY/BOTH entry of a round k−1 file and not fetched yet this night.
 * The published studies do the same (CNIL LINC 2020: up to 3 intermediaries; IEEE S&P 2024: 5
 * rounds). `sql/views.sql`'s `adsnap_host` macro is the same reduction as `sellerDomainHost`, so
 * the `seller_reach` view walks exactly the links the crawl followed.
 */
import { isValidDnsName } from '../util/domain.js';

/** seller_type values whose domain is an intermediary's (the parser upper-cases seller_type). */
export function namesIntermediary(sellerType: string | null): boolean {
  return sellerType === 'INTERMEDIARY' || sellerType === 'BOTH';
}

// ASCII whitespace only, as RE2 (DuckDB) reads `[ \t\n\r\f\v]`: the SQL macro must agree.
const EDGE_SPACE = /^[ \t\n\r\f\v]+|[ \t\n\r\f\v]+$/g;
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//;
const AFTER_HOST = /[/?#][\s\S]*$/;
const PORT = /:[0-9]*$/;
const TRAILING_DOTS = /\.+$/;

/**
 * A sellers.json `domain` (or an OWNERDOMAIN) reduced to its host: trimmed, lower-cased, scheme,
 * path, query, fragment and port dropped, trailing dots too (`https://MidReseller.com:443/x` →
 * `midreseller.com`). Null when nothing is left. Not a validity check (see `intermediaryToFetch`).
 */
export function sellerDomainHost(domain: string | null): string | null {
  if (domain === null) return null;
  const h = domain.replace(EDGE_SPACE, '').toLowerCase().replace(SCHEME, '').replace(AFTER_HOST, '').replace(PORT, '').replace(TRAILING_DOTS, '');
  return h === '' ? null : h;
}

/**
 * The host whose sellers.json an INTERMEDIARY/BOTH entry names, or null when the entry names
 * none that can be asked: no domain, or not a DNS name (a company name, an IP address, non-ASCII
 * text: the SQL side cannot turn IDN into punycode, so the crawl does not follow those either).
 */
export function intermediaryToFetch(sellerType: string | null, domain: string | null): string | null {
  if (!namesIntermediary(sellerType)) return null;
  const host = sellerDomainHost(domain);
  return host !== null && isValidDnsName(host) ? host : null;
}

export interface RoundPlan {
  /** The next round's domains, sorted (the round's deterministic input: resume and shards rely on it). */
  list: string[];
  /** Domains left out because the night's bound on intermediary files was reached. */
  notFetched: number;
}

/**
 * The next round: every named domain not fetched yet this night, sorted, cut to `budget` (what
 * the bound on intermediary files per night leaves).
 */
export function planNextRound(named: Iterable<string>, fetched: ReadonlySet<string>, budget: number): RoundPlan {
  const all = [...new Set(named)].filter((d) => !fetched.has(d)).sort();
  const room = Math.max(0, budget);
  return all.length > room ? { list: all.slice(0, room), notFetched: all.length - room } : { list: all, notFetched: 0 };
}
