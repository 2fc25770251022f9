import { performance } from 'node:perf_hooks';
import type { Agent } from 'undici';
import { toAsciiHost } from '../util/domain.js';
import { createAgent } from './agent.js';
import type { Readable } from 'node:stream';
import { ACCEPT_ENCODING, cappedBody, decodeBody, discardStream, newBodyState } from './body-reader.js';
import type { FetchConfig } from './config.js';
import { AddressAllowList } from './address-guard.js';
import { DnsCache, operatorResolver } from './dns-cache.js';
import { classifyError, FetchFailure, NO_ANSWER_CODES, type FetchErrorCode } from './errors.js';
import { CHALLENGE_PEEK_BYTES, challengeFromBody, isHtmlType } from './challenge.js';
import { discard, ipKeyOf, sendHop, type Budget, type ExchangeDeps, type OpenResponse } from './exchange.js';
import { Politeness } from './politeness.js';
import { RouteTable } from './routes.js';
import { UnresponsiveAddresses } from './unresponsive.js';
import { decideRedirect, redirectPolicies, REDIRECT_STATUSES, startRedirects } from './redirect-policy.js';
import type { BodyConsumer, FetchKind, FetchOutcome, FetchRequest, FetchRow, ResponseMeta } from './types.js';

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
};

/** ads.txt 1.1 §3.1 / app-ads.txt 1.0: HTTPS first, HTTP when HTTPS gave no HTTP answer. */
// robots.txt too: RFC 9309 §2.3 scopes a robots.txt to its scheme, so a site reached over HTTP
// after HTTPS failed is governed by its http:// robots.txt.
// The consent files (--ai-signals) follow the site's files: a site served over HTTP only still speaks.
const HTTP_FALLBACK: ReadonlySet<FetchKind> = new Set(['ads.txt', 'app-ads.txt', 'robots.txt', 'tdmrep.json', 'llms.txt', 'rsl']);

function header(h: Record<string, string | string[] | undefined>, name: string): string | null {
  const v = h[name];
  return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
}

/** One chain (one `fetches` row) and what the outcome needs from it. */
interface ChainResult<T> {
  row: FetchRow;
  outcome: Omit<FetchOutcome<T>, 'rows'>;
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
 * The fetch stack: one undici Agent, one DNS cache, one set of politeness slots; each `fetch`
 * follows the kind's redirect rule hop by hop and yields one `fetches` row per chain. Web
 * outcomes (404, DNS failure, timeout, redirect out of scope…) are data in the outcome, never
 * exceptions; only a bug in `consume` (an error that is not a body read failure) is rethrown.
 */
export class Fetcher {
  readonly config: FetchConfig;
  private readonly agent: Agent;
  private readonly routes = new RouteTable();
  private readonly dns: DnsCache;
  private readonly operatorDns: DnsCache;
  private readonly politeness: Politeness;
  private readonly deps: ExchangeDeps;
  private readonly counters = { requests: 0, fetches: 0, bytes: 0 };
  private readonly errorCounts: Record<string, number> = {};
  private readonly walls: Record<string, number> = {};
  private readonly unresponsive: UnresponsiveAddresses | null;

  constructor(config: FetchConfig) {
    this.config = config;
    this.unresponsive = config.unresponsiveAfter > 0 ? new UnresponsiveAddresses({ threshold: config.unresponsiveAfter, now: config.now }) : null;
    this.agent = createAgent(config, this.routes, this.unresponsive ?? undefined);
    this.dns = new DnsCache(config.resolver, config.dnsCacheSize, config.dnsTtlMs, config.dnsNegativeTtlMs, config.now);
    this.operatorDns = new DnsCache(operatorResolver, 256, config.dnsTtlMs, 1000, config.now);
    this.politeness = new Politeness({ perHost: config.perHost, perIp: config.perIp, concurrency: config.concurrency, now: config.now, sleep: config.sleep, onBackoff: config.onBackoff ?? undefined });
    this.deps = {
      agent: this.agent,
      routes: this.routes,
      politeness: this.politeness,
      config,
      targets: { connectTo: config.connectTo, dns: this.dns, operatorDns: this.operatorDns, blockPrivateAddresses: config.blockPrivateAddresses, allowList: new AddressAllowList(config.allowAddresses) },
      onSend: () => void this.counters.requests++,
    };
  }

  async fetch<T>(req: FetchRequest, consume: BodyConsumer<T>): Promise<FetchOutcome<T>> {
    const first = await this.chain(req, req.url, consume);
    const rows = [first.row];
    let used = first;
    const url = first.row.url;
    if (HTTP_FALLBACK.has(req.kind) && url.startsWith('https:') && first.row.status_code === null && !first.row.redirects?.length && NO_ANSWER_CODES.has(first.row.error ?? '')) {
      // spec-decisions: fall back to HTTP only when HTTPS could not give an HTTP answer
      // (connect refused, TLS failure, timeout, reset). A DNS failure or a blocked address would
      // be the same over HTTP; an HTTPS 404 is an answer.
      const httpUrl = new URL(url);
      httpUrl.protocol = 'http:';
      if (httpUrl.port === '443') httpUrl.port = '';
      used = await this.chain(req, httpUrl.href, consume);
      rows.push(used.row);
    }
    this.counters.fetches++;
    for (const r of rows) if (r.error) this.errorCounts[r.error] = (this.errorCounts[r.error] ?? 0) + 1;
    return { rows, ...used.outcome };
  }

  private async chain<T>(req: FetchRequest, href: string, consume: BodyConsumer<T>): Promise<ChainResult<T>> {
    const startedAt = new Date(this.config.now());
    const t0 = performance.now();
    const row: FetchRow = {
      url: href,
      host: null,
      subject: req.subject,
      file_kind: req.kind,
      status_code: null,
      final_url: null,
      redirects: [],
      content_type: null,
      bytes: 0,
      truncated: false,
      sha256: null,
      etag: null,
      last_modified: null,
      error: null,
      remote_ip: null,
      attempts: 0,
      started_at: startedAt,
      duration_ms: 0,
      tdm_reservation: null,
      tdm_policy: null,
    };
    const outcome: ChainResult<T>['outcome'] = {
      status: null, finalUrl: null, contentType: null, error: null, notModified: false, truncated: false,
      bytes: 0, sha256: null, etag: null, lastModified: null, cacheControl: null, expires: null, body: null,
    };
    const done = (error: FetchErrorCode | null): ChainResult<T> => {
      row.error = error;
      row.duration_ms = Math.round(performance.now() - t0);
      Object.assign(outcome, {
        status: row.status_code, finalUrl: row.final_url, contentType: row.content_type, error,
        truncated: row.truncated, bytes: row.bytes, sha256: row.sha256, etag: row.etag, lastModified: row.last_modified,
      });
      return { row, outcome };
    };

    let url: URL;
    try {
      url = new URL(href);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('not http(s)');
      if (url.hash) url.hash = '';
    } catch {
      return done('bad_url');
    }
    row.url = url.href;
    row.host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : toAsciiHost(url.hostname);

    const headers: Record<string, string> = { 'user-agent': this.config.userAgent, accept: ACCEPT[req.kind], 'accept-encoding': ACCEPT_ENCODING };
    const v = req.validators;
    if (v?.etag) headers['if-none-match'] = v.etag;
    if (v?.lastModified) headers['if-modified-since'] = v.lastModified;

    const budget: Budget = { remainingMs: this.config.totalTimeoutMs[req.kind] };
    const redirects = startRedirects(redirectPolicies[req.kind], url);
    row.redirects = redirects.chain;
    let current = url;
    let attempts = 0;
    for (;;) {
      const hop = await sendHop(current, headers, budget, this.deps, { signal: req.signal, closeConnection: req.closeConnection });
      row.attempts = attempts += hop.attempts;
      row.remote_ip = hop.ip;
      row.final_url = current.href;
      if (!hop.response) {
        row.status_code = null;
        return done(hop.error);
      }
      const r = hop.response;
      const status = r.res.statusCode;
      row.status_code = status;
      row.content_type = header(r.res.headers, 'content-type');
      row.etag = header(r.res.headers, 'etag');
      row.last_modified = header(r.res.headers, 'last-modified');
      // TDMRep §3.2: every response may carry the reservation; kept as served, read by site_ai_consent.
      row.tdm_reservation = header(r.res.headers, 'tdm-reservation');
      row.tdm_policy = header(r.res.headers, 'tdm-policy');
      outcome.cacheControl = header(r.res.headers, 'cache-control');
      outcome.expires = header(r.res.headers, 'expires');
      if (hop.wall !== null) {
        // A bot wall's page is not the site's answer (challenge.ts): `blocked`, whatever its status.
        await discard(r);
        this.walls[hop.wall] = (this.walls[hop.wall] ?? 0) + 1;
        return done('challenge');
      }
      if (REDIRECT_STATUSES.has(status)) {
        await discard(r);
        const decision = decideRedirect(redirects, current, header(r.res.headers, 'location'));
        if ('error' in decision) return done(decision.error);
        current = decision.follow;
        continue;
      }
      if (status < 200 || status > 299) {
        await discard(r);
        outcome.notModified = status === 304 && Boolean(v?.etag || v?.lastModified);
        return done(null);
      }
      return this.readBody(r, req, url, current, consume, row, outcome, done);
    }
  }

  private async readBody<T>(
    r: OpenResponse, req: FetchRequest, url: URL, current: URL, consume: BodyConsumer<T>,
    row: FetchRow, outcome: ChainResult<T>['outcome'], done: (e: FetchErrorCode | null) => ChainResult<T>,
  ): Promise<ChainResult<T>> {
    const maxBytes = this.config.maxBytes[req.kind];
    let decoded: Readable;
    try {
      decoded = decodeBody(r.res.body, r.res.headers['content-encoding']);
    } catch (err) {
      discardStream(r.res.body);
      r.finish();
      return done(classifyError(err));
    }
    const state = newBodyState();
    let body: AsyncGenerator<Uint8Array, void, undefined> = cappedBody(decoded, maxBytes, state, r.abortCode);
    if (isHtmlType(row.content_type)) {
      // A 2xx HTML page may be a bot wall's interstitial (challenge.ts): look at its first bytes
      // before the consumer does, and hand the consumer the same bytes followed by the rest.
      const head = await peekHead(body);
      const wall = head.error !== null ? null : challengeFromBody(Buffer.concat(head.chunks));
      if (wall !== null) {
        discardStream(decoded);
        await body.return(undefined);
        r.finish();
        this.walls[wall] = (this.walls[wall] ?? 0) + 1;
        const hold = Math.min(this.config.wallHoldMs, this.config.maxRetryAfterMs);
        this.politeness.backOff(r.target.host, hold, ipKeyOf(r.target), Math.min(hold, this.config.ipBackoffMs), `challenge:${wall}`);
        return done('challenge');
      }
      body = replay(head, body);
    }
    const meta: ResponseMeta = { url: url.href, finalUrl: current.href, status: r.res.statusCode, headers: r.res.headers, contentType: row.content_type, maxBytes, deadlineAt: r.deadlineAt };
    try {
      outcome.body = await consume(body, meta);
    } catch (err) {
      // A body read failure (deadline, reset, corrupt gzip) reaches the consumer as a
      // FetchFailure; it is a web outcome. Anything else is a bug in the consumer: rethrown.
      if (state.error === null && !(err instanceof FetchFailure)) throw err;
      outcome.body = null;
      state.error ??= (err as FetchFailure).code;
    } finally {
      // The consumer may have stopped early or never started: abort the rest of the transfer.
      if (!state.complete) {
        discardStream(decoded);
        await body.return(undefined);
      }
      r.finish();
    }
    row.bytes = state.bytes;
    row.truncated = state.truncated;
    row.sha256 = state.bytes > 0 || state.complete || state.truncated ? state.hash.digest('hex') : null;
    this.counters.bytes += state.bytes;
    return done(state.error ?? (state.truncated ? 'too_large' : null));
  }

  stats(): FetcherStats {
    return {
      inFlight: this.politeness.inFlight,
      requests: this.counters.requests,
      fetches: this.counters.fetches,
      bytes: this.counters.bytes,
      errors: { ...this.errorCounts },
      dnsCacheSize: this.dns.size,
      dnsHits: this.dns.hits,
      dnsMisses: this.dns.misses,
      hostsTracked: this.politeness.hosts.keys,
      ipsTracked: this.politeness.ips.keys,
      hostsDeferred: this.politeness.clocks.size,
      ipsDeferred: this.politeness.ipClocks.size,
      backoffs: { ...this.politeness.backoffs },
      walls: { ...this.walls },
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

/** Reads the first CHALLENGE_PEEK_BYTES of a body (or all of a shorter one); a read failure is kept for the consumer to meet. */
async function peekHead(body: AsyncGenerator<Uint8Array, void, undefined>): Promise<{ chunks: Uint8Array[]; ended: boolean; error: unknown }> {
  const chunks: Uint8Array[] = [];
  let n = 0;
  try {
    while (n < CHALLENGE_PEEK_BYTES) {
      const next = await body.next();
      if (next.done) return { chunks, ended: true, error: null };
      chunks.push(next.value);
      n += next.value.byteLength;
    }
  } catch (err) {
    return { chunks, ended: true, error: err ?? new Error('body read failed') };
  }
  return { chunks, ended: false, error: null };
}

/** The peeked chunks again, then the rest of the body (or the failure met while peeking). */
async function* replay(head: { chunks: Uint8Array[]; ended: boolean; error: unknown }, rest: AsyncGenerator<Uint8Array, void, undefined>): AsyncGenerator<Uint8Array, void, undefined> {
  try {
    yield* head.chunks;
    if (head.error !== null) throw head.error;
    if (!head.ended) yield* rest;
  } finally {
    await rest.return(undefined);
  }
}
