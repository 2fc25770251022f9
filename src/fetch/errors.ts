import { classifyDnsError, type DnsErrorCode } from './dns-errors.js';

/**
 * Stable error codes for the `fetches.error` column. Expected web outcomes are data, never
 * exceptions: every failure of a request is mapped here to one code the crawl can act on.
 */
export type FetchErrorCode =
  | DnsErrorCode // the name gave no address: dns_nxdomain, dns_servfail, dns_refused, dns_timeout, dns_no_address, or plain dns (dns-errors.ts)
  | 'blocked_address' // DNS gave only loopback/private/link-local/metadata addresses
  | 'connect' // TCP connect refused or unreachable
  | 'tls' // TLS handshake or certificate failure
  | 'timeout' // connect, headers or whole-request deadline passed
  | 'unresponsive' // not tried: the address let connects time out unanswered earlier in the run (unresponsive.ts)
  | 'reset' // connection closed or reset mid-exchange
  | 'protocol' // the answer was not valid HTTP/1.1
  | 'challenge' // a bot wall answered: a CDN's challenge or block page (challenge.ts), not the site's answer
  | 'decode' // Content-Encoding could not be decoded
  | 'too_many_encodings' // more than MAX_CONTENT_CODINGS codings stacked in Content-Encoding
  | 'too_large' // the body went past the kind's byte cap (the first bytes were kept)
  | 'redirect_loop' // a redirect pointed back to a URL already in the chain
  | 'redirect_limit' // more redirects than the kind allows
  | 'redirect_scope' // ads.txt 1.1 §3.1: a redirect after the one hop outside the root domain
  | 'redirect_invalid' // a redirect without a usable http(s) Location
  | 'bad_url' // the URL to fetch is not an absolute http(s) URL
  | 'aborted' // the caller's signal aborted the request
  | 'other'; // anything unforeseen (kept, never thrown)

/** Codes that mean "no HTTP answer could be had over this scheme" (ads.txt HTTP fallback). */
export const NO_ANSWER_CODES: ReadonlySet<string> = new Set(['connect', 'tls', 'timeout', 'unresponsive', 'reset', 'protocol']);

/** An error carrying a stable code, thrown only inside the fetch layer and turned into data. */
export class FetchFailure extends Error {
  readonly code: FetchErrorCode;
  constructor(code: FetchErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = 'FetchFailure';
  }
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|ERR_OSSL_|HOSTNAME_MISMATCH)/;

/** Maps a Node / undici / zlib error to a stable code. */
export function classifyError(err: unknown): FetchErrorCode {
  if (err instanceof FetchFailure) return err.code;
  const e = err as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  switch (code) {
    case 'ENOTFOUND':
    case 'ENODATA':
    case 'ESERVFAIL':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
    case 'ENONAME':
    case 'EREFUSED':
    case 'EBADNAME':
    case 'ETIMEOUT': // c-ares' DNS time-out (a socket's is ETIMEDOUT)
      return classifyDnsError(err);
    case 'ECONNREFUSED':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EADDRNOTAVAIL':
    case 'EHOSTDOWN':
      return 'connect';
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return 'timeout';
    case 'ECONNRESET':
    case 'EPIPE':
    case 'ECONNABORTED':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
    case 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH':
    case 'ERR_STREAM_PREMATURE_CLOSE':
      return 'reset';
    case 'UND_ERR_HEADERS_OVERFLOW':
    case 'UND_ERR_INFO':
    case 'HPE_INVALID_CONSTANT':
      return 'protocol';
    case 'Z_DATA_ERROR':
    case 'Z_BUF_ERROR':
    case 'Z_NEED_DICT':
    case 'ERR_BROTLI_DECOMPRESSION_FAILED':
    case 'ERR__ERROR_FORMAT_PADDING_1':
      return 'decode';
    case 'UND_ERR_ABORTED':
    case 'ABORT_ERR':
      return 'aborted';
    default:
      break;
  }
  if (code.startsWith('HPE_')) return 'protocol';
  if (code.startsWith('ERR_BROTLI') || code.startsWith('Z_')) return 'decode';
  if (TLS_CODE.test(code) || /alert|ssl|certificate/i.test(String(e?.message ?? ''))) return 'tls';
  if (e?.name === 'AbortError') return 'aborted';
  if (e?.cause && e.cause !== err) return classifyError(e.cause);
  return 'other';
}

/** Short, single-line text of an error for logs (never stored in tables). */
export function errorText(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown } | null;
  return `${typeof e?.code === 'string' ? e.code + ': ' : ''}${String(e?.message ?? err)}`.slice(0, 300);
}
