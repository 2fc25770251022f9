import { readFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { defaultUserAgent } from '../util/version.js';
import { parseConnectTo, type ConnectTo } from './connect-to.js';
import { parseAllowCidr } from './address-guard.js';
import { dnsResolver, type HostResolver } from './dns-cache.js';
import { formatDnsServer, parseDnsServer } from './dns-servers.js';
import type { BackoffListener } from './politeness.js';
import { fetchKinds, type FetchKind } from './types.js';

const KiB = 1024;
const MiB = 1024 * KiB;

/** The resolved fetch configuration: validated once by `resolveFetchConfig`, trusted after. */
export interface FetchConfig {
  /** User-Agent naming the product and a URL (spec-decisions). @default `adsnap/<version> (+https://github.com/adsnap/adsnap)` */
  userAgent: string;
  /** `--connect-to` rules, first match wins. Their targets are exempt from the address guard. @default [] */
  connectTo: ConnectTo[];
  /** Extra trusted CA certificates (PEM), added to Node's bundled roots (`--cacert`). @default [] */
  caCerts: string[];
  /** Requests at a time to one host name. @default 1 */
  perHost: number;
  /** Requests at a time to one IP address that DNS gave (shared hosting); --connect-to targets are exempt (each host counts alone). @default 16 */
  perIp: number;
  /** Requests in flight overall. @default 256 */
  concurrency: number;
  /** Body byte cap per kind, counted after decompression. @default ads.txt/app-ads.txt 16 MiB, robots.txt 512 KiB, sellers.json 256 MiB, store_page 4 MiB */
  maxBytes: Record<FetchKind, number>;
  /** TCP + TLS connect deadline (undici's connector): three SYN tries at Linux's 1 s / 3 s retransmits, and a TLS handshake over a slow link. @default 5000 */
  connectTimeoutMs: number;
  /** Connect time-outs in a row, before the TCP handshake, after which an address:port is not tried again for a while (fetch error `unresponsive`; unresponsive.ts); 0 = always try. @default 2 */
  unresponsiveAfter: number;
  /** From sending a request to its response headers (exact timer, per hop). @default 10000 */
  headersTimeoutMs: number;
  /** Network time budget of one request chain: every hop, headers and the whole body. @default ads/app-ads/robots/store 30000, sellers.json 300000 */
  totalTimeoutMs: Record<FetchKind, number>;
  /** Retries of a transient failure (reset, 408/429/502/503/504) per hop. @default 2 */
  retries: number;
  /** First backoff delay; doubles per retry, with jitter. @default 1000 */
  retryBaseMs: number;
  /** Longest backoff delay. @default 30000 */
  retryMaxMs: number;
  /** Longest Retry-After honoured by waiting; longer ones end the request (status kept) and hold the host. @default 60000 */
  maxRetryAfterMs: number;
  /** How long the address behind a host that answered 429 or a bot wall is held (at most the host's own hold): a shared CDN address is spared a moment, not the night. @default 1000 */
  ipBackoffMs: number;
  /** How long a host that answered with a bot wall (challenge.ts) is held, unless its Retry-After says otherwise (capped by maxRetryAfterMs). @default 5000 */
  wallHoldMs: number;
  /** Told of every hold set, for the run's counters. @default none */
  onBackoff: BackoffListener | null;
  /** Host name → addresses. Injectable so tests need no DNS. @default c-ares resolve4 then resolve6, asking dnsServers */
  resolver: HostResolver;
  /** Resolvers asked (`--dns-server`), as `ADDR:PORT` / `[IPv6]:PORT`; empty = the system's (/etc/resolv.conf). @default [] */
  dnsServers: string[];
  /** Time-out of a DNS query's first try, ms (c-ares doubles it per try). @default 5000 */
  dnsTimeoutMs: number;
  /** Tries of a DNS query per server. @default 2 */
  dnsTries: number;
  /** Networks exempt from the address guard (`--allow-addresses`, normalised CIDRs): an operator's opt-out for a test network, never a default. @default [] */
  allowAddresses: string[];
  /** DNS cache entries kept (LRU). @default 10000 */
  dnsCacheSize: number;
  /** Lifetime of a DNS answer in the cache. @default 300000 */
  dnsTtlMs: number;
  /** Lifetime of a DNS failure in the cache. @default 60000 */
  dnsNegativeTtlMs: number;
  /** Refuse loopback/private/link-local/metadata addresses from DNS (`blocked_address`). @default true */
  blockPrivateAddresses: boolean;
  /** Idle keep-alive time of a connection: long enough for one site's requests in a row (robots.txt → ads.txt → redirects), short so a crawl holds few idle sockets and pools. @default 2000 */
  keepAliveTimeoutMs: number;
  /** Clock, injectable for tests. @default Date.now */
  now: () => number;
  /**
   * The run's clock, for the times rows record (`fetches.started_at`): a crawl's `--now` shifts
   * it, so recorded times and freshness share one clock; waits, holds and caches keep `now`. @default now
   */
  recordNow: () => number;
  /** Sleep used for backoff and Retry-After waits, injectable for tests. @default timers/promises setTimeout */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Jitter source in [0, 1). @default Math.random */
  random: () => number;
}

/** What callers may give: any subset; per-kind maps may be a single number or a partial map; connect-to rules may be strings. */
export type FetchOptions = Partial<Omit<FetchConfig, 'maxBytes' | 'totalTimeoutMs' | 'connectTo'>> & {
  /** `--dns-server` specs (ADDR[:PORT], [IPv6]:PORT) are normalised; `--allow-addresses` values likewise. */
  maxBytes?: number | Partial<Record<FetchKind, number>>;
  totalTimeoutMs?: number | Partial<Record<FetchKind, number>>;
  connectTo?: Array<string | ConnectTo>;
};

export const defaultMaxBytes: Readonly<Record<FetchKind, number>> = {
  'ads.txt': 16 * MiB,
  'app-ads.txt': 16 * MiB,
  // RFC 9309 §2.5: the parsing limit MUST be at least 500 KiB.
  'robots.txt': 512 * KiB,
  'sellers.json': 256 * MiB,
  // buyers.json 1.0 is sellers.json's demand-side counterpart: the same rules.
  'buyers.json': 256 * MiB,
  store_page: 4 * MiB,
  // The consent files (--ai-signals): a rule list, a Markdown site map, a licence; real ones are KiB.
  'tdmrep.json': 1 * MiB,
  'llms.txt': 4 * MiB,
  rsl: 4 * MiB,
  // The home page is read only up to the end of its head (docs/reference/ai-signals.md): a head
  // larger than this is cut, and the row says so.
  home_page: 256 * KiB,
};

export const defaultTotalTimeoutMs: Readonly<Record<FetchKind, number>> = {
  'ads.txt': 30_000,
  'app-ads.txt': 30_000,
  'robots.txt': 30_000,
  'sellers.json': 300_000,
  'buyers.json': 300_000,
  store_page: 30_000,
  'tdmrep.json': 30_000,
  'llms.txt': 30_000,
  rsl: 30_000,
  home_page: 30_000,
};

function int(name: string, v: unknown, fallback: number, min: number): number {
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min) {
    throw new TypeError(`fetch option ${name} must be an integer ≥ ${min}, got ${JSON.stringify(v)}`);
  }
  return v;
}

function perKind(name: string, v: number | Partial<Record<FetchKind, number>> | undefined, defaults: Readonly<Record<FetchKind, number>>): Record<FetchKind, number> {
  const out = { ...defaults };
  if (v === undefined) return out;
  if (typeof v === 'number') {
    for (const k of fetchKinds) out[k] = int(name, v, 0, 1);
    return out;
  }
  for (const [k, n] of Object.entries(v)) {
    if (!fetchKinds.includes(k as FetchKind)) throw new TypeError(`fetch option ${name}: unknown kind ${JSON.stringify(k)} (kinds: ${fetchKinds.join(', ')})`);
    out[k as FetchKind] = int(`${name}.${k}`, n, 0, 1);
  }
  return out;
}

function fn<T>(name: string, v: T | undefined, fallback: T): T {
  if (v === undefined) return fallback;
  if (typeof v !== 'function') throw new TypeError(`fetch option ${name} must be a function`);
  return v;
}

/** Validates options once, at the edge, into the config the fetch layer trusts. Throws TypeError. */
/** Defaults stated once: the config, the CLI and its help read them from here. */
export const FETCH_DEFAULTS = { perHost: 1, perIp: 16 } as const;

export function resolveFetchConfig(o: FetchOptions = {}): FetchConfig {
  const userAgent = o.userAgent ?? defaultUserAgent;
  if (typeof userAgent !== 'string' || userAgent.trim() === '' || /[\r\n]/.test(userAgent)) {
    throw new TypeError(`fetch option userAgent must be a non-empty single-line string`);
  }
  const caCerts = o.caCerts ?? [];
  for (const pem of caCerts) {
    if (typeof pem !== 'string' || !pem.includes('-----BEGIN CERTIFICATE-----')) throw new TypeError('fetch option caCerts: each entry must be PEM text with a CERTIFICATE block');
  }
  return {
    userAgent,
    connectTo: (o.connectTo ?? []).map((r) => (typeof r === 'string' ? parseConnectTo(r) : r)),
    caCerts: [...caCerts],
    perHost: int('perHost', o.perHost, FETCH_DEFAULTS.perHost, 1),
    perIp: int('perIp', o.perIp, FETCH_DEFAULTS.perIp, 1),
    concurrency: int('concurrency', o.concurrency, 256, 1),
    maxBytes: perKind('maxBytes', o.maxBytes, defaultMaxBytes),
    connectTimeoutMs: int('connectTimeoutMs', o.connectTimeoutMs, 5000, 1),
    unresponsiveAfter: int('unresponsiveAfter', o.unresponsiveAfter, 2, 0),
    headersTimeoutMs: int('headersTimeoutMs', o.headersTimeoutMs, 10_000, 1),
    totalTimeoutMs: perKind('totalTimeoutMs', o.totalTimeoutMs, defaultTotalTimeoutMs),
    retries: int('retries', o.retries, 2, 0),
    retryBaseMs: int('retryBaseMs', o.retryBaseMs, 1000, 0),
    retryMaxMs: int('retryMaxMs', o.retryMaxMs, 30_000, 0),
    maxRetryAfterMs: int('maxRetryAfterMs', o.maxRetryAfterMs, 60_000, 0),
    ipBackoffMs: int('ipBackoffMs', o.ipBackoffMs, 1000, 0),
    wallHoldMs: int('wallHoldMs', o.wallHoldMs, 5000, 0),
    onBackoff: o.onBackoff == null ? null : fn('onBackoff', o.onBackoff, null),
    ...dnsOptions(o),
    dnsCacheSize: int('dnsCacheSize', o.dnsCacheSize, 10_000, 1),
    dnsTtlMs: int('dnsTtlMs', o.dnsTtlMs, 300_000, 0),
    dnsNegativeTtlMs: int('dnsNegativeTtlMs', o.dnsNegativeTtlMs, 60_000, 0),
    blockPrivateAddresses: o.blockPrivateAddresses ?? true,
    keepAliveTimeoutMs: int('keepAliveTimeoutMs', o.keepAliveTimeoutMs, 2000, 1),
    now: fn('now', o.now, Date.now),
    recordNow: fn('recordNow', o.recordNow, fn('now', o.now, Date.now)),
    sleep: fn('sleep', o.sleep, (ms: number, signal?: AbortSignal) => delay(ms, undefined, signal === undefined ? undefined : { signal })),
    random: fn('random', o.random, Math.random),
  };
}

/** The resolver and its servers, time-out and tries; `--allow-addresses` networks (docs/guide/real-web.md). */
function dnsOptions(o: FetchOptions): Pick<FetchConfig, 'resolver' | 'dnsServers' | 'dnsTimeoutMs' | 'dnsTries' | 'allowAddresses'> {
  const dnsServers = (o.dnsServers ?? []).map((spec) => formatDnsServer(parseDnsServer(spec)));
  const dnsTimeoutMs = int('dnsTimeoutMs', o.dnsTimeoutMs, 5000, 1);
  const dnsTries = int('dnsTries', o.dnsTries, 2, 1);
  const allowAddresses = (o.allowAddresses ?? []).map(parseAllowCidr);
  const resolver = fn('resolver', o.resolver, undefined) ?? dnsResolver({ servers: dnsServers, timeoutMs: dnsTimeoutMs, tries: dnsTries });
  return { resolver, dnsServers, dnsTimeoutMs, dnsTries, allowAddresses };
}

/** Reads `--cacert FILE`s (PEM). Throws TypeError naming the file when it holds no certificate. */
export async function loadCaCerts(files: readonly string[]): Promise<string[]> {
  return Promise.all(
    files.map(async (f) => {
      const pem = await readFile(f, 'utf8');
      if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new TypeError(`--cacert ${f}: no PEM CERTIFICATE block in the file`);
      return pem;
    }),
  );
}
