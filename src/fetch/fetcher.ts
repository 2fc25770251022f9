import { performance } from 'node:perf_hooks';
import type { Agent } from 'undici';
import { toAsciiHost } from '../util/domain.js';
import { createAgent } from './agent.js';
import { failed, NO_BODY, readBody } from './answer-body.js';
import { ACCEPT_ENCODING } from './body-reader.js';
import { chainResult, outcomeOf, type ChainResult, type ChainStart } from './chain-result.js';
import type { FetchConfig } from './config.js';
import { AddressAllowList } from './address-guard.js';
import { DnsCache, operatorResolver } from './dns-cache.js';
import { discard, sendOnce } from './exchange.js';
import { fallbackUrl } from './fallback.js';
import { FetchCounters } from './fetch-counters.js';
import { holdWalls, WallHolds } from './holds.js';
import { compose, headerValue, type HopAnswer, type OpenResponse, type SendHop } from './hop.js';
import { Politeness } from './politeness.js';
import { followRedirects } from './redirect-policy.js';
import { retryTransient } from './retry.js';
import { RouteTable } from './routes.js';
import { UnresponsiveAddresses } from './unresponsive.js';
import type { BodyConsumer, FetchKind, FetchOutcome, FetchRequest, ResponseMeta } from './types.js';

const ACCEPT: Record<FetchKind, string> = {
  'ads.txt': 'text/plain, */*;q=0.5',
  'app-ads.txt': 'text/plain, */*;q=0.5',
  'robots.txt': 'text/plain, */*;q=0.5',
  'sellers.json': 'application/json, */*;q=0.5',
  'buyers.json': 'application/json, */*;q=0.5',
  store_page: 'text/html, */*;q=0.5',
  'tdmrep.json': 'application/json, */*;q=0.5',
  'llms.txt': 'text/markdown, text/plain;q=0.9, */*;q=0.5',
  rsl: 'application/rsl+xml, application/xml, text/xml;q=0.9, */*;q=0.5',
  home_page: 'text/html, application/xhtml+xml;q=0.9, */*;q=0.5',
};

/** An absolute http(s) URL without its fragment, or null. */
function fetchableUrl(href: string): URL | null {
  try {
    const url = new URL(href);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    if (url.hash) url.hash = '';
    return url;
  } catch {
    return null;
  }
}

export interface FetcherStats {
  /** Requests holding a global slot right now. */
  inFlight: number;
  /** HTTP requests sent (every hop and retry). */
  requests: number;
  /** `fetch()` calls finished. */
  fetches: number;
  /** Decoded body bytes handed to consumers. */
  bytes: number;
  /** Chains ended by each error code. */
  errors: Record<string, number>;
  dnsCacheSize: number;
  dnsHits: number;
  dnsMisses: number;
  /** Host names / addresses with a request active or waiting. */
  hostsTracked: number;
  ipsTracked: number;
  /** Hosts held back by Retry-After / 429 / a bot wall right now. */
  hostsDeferred: number;
  /** Addresses held back right now. */
  ipsDeferred: number;
  /** Holds set so far (politeness.ts), per host and per address. */
  backoffs: { hosts: number; ips: number };
  /** Bot walls met, by vendor (challenge.ts). */
  walls: Record<string, number>;
  /** Addresses marked as not answering a SYN, and connects not tried because of it (unresponsive.ts). */
  unresponsive: { marked: number; skipped: number };
  /** Origins with a request out and the address chosen for it (routes.ts). */
  routes: number;
  /** Origins with an open undici pool (idle keep-alive connections included); pools close with their last connection. */
  pools: number;
}

/**
 * The fetch stack: one undici Agent, one DNS cache, one set of politeness slots, and the policies
 * composed once over them (hop.ts); each `fetch` runs one chain, perhaps a second over HTTP
 * (fallback.ts), and yields one `fetches` row per chain. Web outcomes (404, DNS failure, timeout,
 * redirect out of scope…) are data in the outcome, never exceptions; only a bug in `consume` (an
 * error that is not a body read failure) is rethrown.
 */
export class Fetcher {
  readonly config: FetchConfig;
  private readonly agent: Agent;
  private readonly routes = new RouteTable();
  private readonly dns: DnsCache;
  private readonly operatorDns: DnsCache;
  private readonly politeness: Politeness;
  /** The policies, composed once (hop.ts). */
  private readonly send: SendHop;
  private readonly walls: WallHolds;
  /** The one sink of this stack's events (fetch-counters.ts): what stats(), the run's progress line and its manifest read. */
  readonly counters: FetchCounters;
  private readonly unresponsive: UnresponsiveAddresses | null;

  constructor(config: FetchConfig, counters: FetchCounters = new FetchCounters()) {
    this.config = config;
    this.counters = counters;
    this.unresponsive = config.unresponsiveAfter > 0 ? new UnresponsiveAddresses({ threshold: config.unresponsiveAfter, now: config.now }) : null;
    this.agent = createAgent(config, this.routes, this.unresponsive ?? undefined);
    this.dns = new DnsCache(config.resolver, config.dnsCacheSize, config.dnsTtlMs, config.dnsNegativeTtlMs, config.now);
    this.operatorDns = new DnsCache(operatorResolver, 256, config.dnsTtlMs, 1000, config.now);
    this.politeness = new Politeness({ perHost: config.perHost, perIp: config.perIp, concurrency: config.concurrency, now: config.now, sleep: config.sleep, onBackoff: config.onBackoff ?? undefined, counters });
    this.walls = new WallHolds(this.politeness, config, counters);
    const deps = {
      agent: this.agent,
      routes: this.routes,
      politeness: this.politeness,
      config,
      targets: { connectTo: config.connectTo, dns: this.dns, operatorDns: this.operatorDns, blockPrivateAddresses: config.blockPrivateAddresses, allowList: new AddressAllowList(config.allowAddresses) },
      onSend: () => counters.sent(),
    };
    this.send = compose(sendOnce(deps), holdWalls(this.walls, config.now), retryTransient(config), followRedirects);
  }

  async fetch<T>(req: FetchRequest, consume: BodyConsumer<T>): Promise<FetchOutcome<T>> {
    const first = await this.chain(req, req.url, consume);
    const httpUrl = fallbackUrl(req.kind, first.row);
    const used = httpUrl === null ? first : await this.chain(req, httpUrl, consume);
    const rows = used === first ? [first.row] : [first.row, used.row];
    this.counters.fetches++;
    for (const r of rows) this.counters.chain(r);
    return outcomeOf(rows, used);
  }

  /** One chain: the composed policies, then the body of a 2xx answer. */
  private async chain<T>(req: FetchRequest, href: string, consume: BodyConsumer<T>): Promise<ChainResult<T>> {
    const startedAt = new Date(this.config.recordNow());
    const t0 = performance.now();
    const url = fetchableUrl(href);
    if (url === null) return chainResult({ req, url: href, host: null, startedAt, t0 }, null, failed('bad_url'));
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : toAsciiHost(url.hostname);
    const start: ChainStart = { req, url: url.href, host, startedAt, t0 };
    const headers: Record<string, string> = { 'user-agent': this.config.userAgent, accept: ACCEPT[req.kind], 'accept-encoding': ACCEPT_ENCODING };
    const v = req.validators;
    if (v?.etag) headers['if-none-match'] = v.etag;
    if (v?.lastModified) headers['if-modified-since'] = v.lastModified;
    const budget = { remainingMs: this.config.totalTimeoutMs[req.kind] };
    const a = await this.send({ url, kind: req.kind, headers, budget, signal: req.signal, closeConnection: req.closeConnection === true, attempt: 1 });
    const r = a.response;
    if (r === null || a.status === null) return chainResult(start, a, NO_BODY);
    if (a.status < 200 || a.status > 299) {
      await discard(r);
      return chainResult(start, a, NO_BODY);
    }
    const read = await readBody(r, this.meta(req.kind, url, a, a.status, r), consume, this.walls);
    return chainResult(start, a, read);
  }

  /** What the consumer learns before reading a 2xx answer of the chain that began at `url`. */
  private meta(kind: FetchKind, url: URL, a: HopAnswer, status: number, r: OpenResponse): ResponseMeta {
    const headers = a.headers ?? {};
    return { url: url.href, finalUrl: a.url.href, status, headers, contentType: headerValue(headers, 'content-type'), maxBytes: this.config.maxBytes[kind], deadlineAt: r.deadlineAt };
  }

  stats(): FetcherStats {
    return {
      inFlight: this.politeness.inFlight,
      requests: this.counters.requests,
      fetches: this.counters.fetches,
      bytes: this.counters.bytes,
      errors: { ...this.counters.errors },
      dnsCacheSize: this.dns.size,
      dnsHits: this.dns.hits,
      dnsMisses: this.dns.misses,
      hostsTracked: this.politeness.hosts.keys,
      ipsTracked: this.politeness.ips.keys,
      hostsDeferred: this.politeness.clocks.size,
      ipsDeferred: this.politeness.ipClocks.size,
      backoffs: { ...this.counters.backoffs },
      walls: { ...this.counters.wallVendors },
      unresponsive: { marked: this.unresponsive?.marked ?? 0, skipped: this.unresponsive?.skipped ?? 0 },
      routes: this.routes.size,
      pools: Object.keys(this.agent.stats).length,
    };
  }

  /**
   * Closes gracefully; a request still queued in a pool after its caller has gone (an aborted
   * run, a test that stopped waiting) must not hold the process open, so after a short grace
   * the agent is destroyed.
   */
  async close(graceMs = 2000): Promise<void> {
    if (this.closing) return this.closing;
    this.closing = this.closeAgent(graceMs);
    return this.closing;
  }

  private closing: Promise<void> | null = null;

  private async closeAgent(graceMs: number): Promise<void> {
    const closed = this.agent.close().then(() => true);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), graceMs)));
    const inTime = await Promise.race([closed, late]);
    clearTimeout(timer);
    if (!inTime) await this.agent.destroy();
  }
}
