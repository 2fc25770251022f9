/**
 * DNS failures by class (docs/guide/real-web.md#dns-failures-by-class). A crawl of a top list meets every way a name can fail, and
 * each says something different: the name does not exist (gone, typo in the list), its zone is
 * broken (lame delegation, DNSSEC failure), its servers refuse or never answer, or it exists with
 * no address. One `dns` code for all of them hid which; these are the finer codes of
 * `fetches.error`, each prefixed `dns_` so that "all DNS failures" stays one `LIKE 'dns%'`.
 *
 * Node reports c-ares' status codes (RFC 1035 §4.1.1 RCODEs as seen by the stub resolver) as
 * `err.code`: https://nodejs.org/api/dns.html#error-codes.
 */
export type DnsErrorCode =
  | 'dns_nxdomain' // RCODE 3: the name does not exist (ENOTFOUND)
  | 'dns_servfail' // RCODE 2: the resolver could not get an answer (lame delegation, DNSSEC) (ESERVFAIL)
  | 'dns_refused' // RCODE 5: a server refused the query (EREFUSED)
  | 'dns_timeout' // no answer from any server within the resolver's time-out and tries (ETIMEOUT)
  | 'dns_no_address' // the name exists but has no A or AAAA record, even after CNAMEs (ENODATA)
  | 'dns'; // a resolver failure that says nothing finer (malformed answer, no server reachable, …)

export const DNS_ERROR_CODES: readonly DnsErrorCode[] = ['dns_nxdomain', 'dns_servfail', 'dns_refused', 'dns_timeout', 'dns_no_address', 'dns'];

/** True for every DNS failure code (the fine ones and plain `dns`). */
export function isDnsErrorCode(code: string | null | undefined): boolean {
  return code === 'dns' || (code?.startsWith('dns_') ?? false);
}

/** Maps a Node DNS error (c-ares or getaddrinfo) to its class; anything else is plain `dns`. */
export function classifyDnsError(err: unknown): DnsErrorCode {
  const code = (err as { code?: unknown } | null)?.code;
  switch (code) {
    case 'ENOTFOUND': // c-ares NXDOMAIN; getaddrinfo EAI_NONAME is reported with this code too
    case 'EAI_NONAME':
      return 'dns_nxdomain';
    case 'ESERVFAIL':
      return 'dns_servfail';
    case 'EREFUSED':
      return 'dns_refused';
    case 'ETIMEOUT':
      return 'dns_timeout';
    case 'ENODATA':
    case 'EAI_NODATA':
      return 'dns_no_address';
    default:
      // EAI_AGAIN (getaddrinfo: "temporary failure", a SERVFAIL or a time-out, it cannot say
      // which), ECONNREFUSED (no DNS server could be reached), EBADRESP, EFORMERR, ENOTIMP, …
      return 'dns';
  }
}
