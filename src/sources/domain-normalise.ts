/**
 * One list value (a host, `www.` host, URL, IDN, `EXAMPLE.com.`) → its root domain (PSL+1,
 * private section included, punycode), or a stable reason why it is not a crawlable site.
 * spec-decisions.md: "Crawl the root domain (PSL+1) of each listed site (ads.txt 1.1 §5.5)".
 */
import { getDomain } from 'tldts';
import { isValidDnsName, rootDomain, toAsciiHost } from '../util/domain.js';

/** Why a list value is not a crawlable site: a stable reason, counted in the manifest's `list.malformedByReason`. */
export const MALFORMED_REASONS = [
  'empty', // no value in the domain field
  'bad_url', // looks like a URL but does not parse
  'ip_address', // an IPv4/IPv6 literal: no domain to crawl
  'localhost',
  'invalid_name', // not an RFC 1123 host name (after IDN → punycode)
  'public_suffix', // a bare public suffix (`co.uk`, `github.io`): no registrable domain
  'no_domain_field', // a CSV row without the domain column
] as const;
export type MalformedReason = (typeof MALFORMED_REASONS)[number];

export type NormalisedDomain = { ok: true; root: string; host: string } | { ok: false; reason: MalformedReason };

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

export function normaliseDomain(value: string): NormalisedDomain {
  const v = value.trim();
  if (v === '') return { ok: false, reason: 'empty' };
  let host: string;
  if (/[/:?#@\s]/.test(v)) {
    // A URL, or host:port / host/path without a scheme. The WHATWG parser also does IDN → punycode.
    if (/\s/.test(v)) return { ok: false, reason: 'invalid_name' };
    let url: URL;
    try {
      url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(v) ? v : `http://${v}`);
    } catch {
      return { ok: false, reason: 'bad_url' };
    }
    host = url.hostname;
    if (host.startsWith('[')) return { ok: false, reason: 'ip_address' };
  } else {
    host = v;
  }
  const ascii = toAsciiHost(host);
  if (ascii === '') return { ok: false, reason: 'invalid_name' };
  if (IPV4.test(ascii)) return { ok: false, reason: 'ip_address' };
  if (ascii === 'localhost' || ascii.endsWith('.localhost')) return { ok: false, reason: 'localhost' };
  if (!isValidDnsName(ascii)) return { ok: false, reason: 'invalid_name' };
  const root = rootDomain(ascii) ?? icannRegistrableSelf(ascii);
  if (root === null) return { ok: false, reason: 'public_suffix' };
  return { ok: true, root, host: ascii };
}

/**
 * A listed host that is itself a private-section suffix but an ICANN registrable domain
 * (`blogspot.com`, `github.io`, `dyndns.org`) is a real site with its own /ads.txt: it is its
 * own root. Only `user.github.io`-style names below it are split off as separate roots.
 * An ICANN suffix itself (`co.uk`, `krakow.pl`) stays malformed.
 */
function icannRegistrableSelf(ascii: string): string | null {
  return getDomain(ascii, { allowPrivateDomains: false, validateHostname: false }) === ascii ? ascii : null;
}
