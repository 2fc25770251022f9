import { detach } from '../../util/detach.js';
import { isValidDnsName, rootDomain, toAsciiHost } from '../../util/domain.js';

/**
 * Domain validation for field #1 and for variable values. ads.txt 1.1 §3.4.2: field #1 is a
 * valid DNS name per RFC 1123. Ad system domains repeat heavily within and across files
 * (google.com, appnexus.com, …), so results are memoised in a small bounded cache: the hot path
 * is one Map lookup instead of a lower-case, an IDN check and a label scan. Keys and values are
 * stored as their own copies: a name cut from a body chunk would keep the chunk alive (detach.ts).
 */
const CACHE_LIMIT = 4096;
const cache = new Map<string, string | null>();

/**
 * Lower-cased ASCII (punycode) form of a trimmed domain, or null when it is not a valid DNS
 * name (URLs, `_`, single labels, IP addresses, …). A trailing dot is dropped.
 */
export function normalizeDomain(raw: string): string | null {
  const hit = cache.get(raw);
  if (hit !== undefined) return hit;
  const ascii = isPlausible(raw) ? toAsciiHost(raw) : '';
  const result = ascii !== '' && isValidDnsName(ascii) ? detach(ascii) : null;
  // Bounded: a hostile file with millions of distinct names cannot grow this without limit.
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(detach(raw), result);
  return result;
}

/** Cheap pre-check so obvious non-domains (URLs, paths, spaces) never reach IDNA conversion. */
function isPlausible(s: string): boolean {
  if (s.length === 0 || s.length > 253) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // '/', ':', '@', whitespace, ',', '%', '=' cannot appear in a host name, even before IDNA mapping.
    if (c === 47 || c === 58 || c === 64 || c <= 32 || c === 44 || c === 37 || c === 61) return false;
  }
  return true;
}

/**
 * ads.txt 1.1 §3.5.1: OWNERDOMAIN and MANAGERDOMAIN should be a registrable domain (PSL+1,
 * private section included as everywhere in adsnap), not a full host name.
 */
export function isRegistrable(asciiDomain: string): boolean {
  return rootDomain(asciiDomain) === asciiDomain;
}
