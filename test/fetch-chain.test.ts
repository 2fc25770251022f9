import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { NO_BODY, readBody } from '../src/fetch/answer-body.js';
import { chainResult, outcomeOf, type ChainStart } from '../src/fetch/chain-result.js';
import { fallbackUrl } from '../src/fetch/fallback.js';
import { holdWalls, WallHolds, type HoldConfig } from '../src/fetch/holds.js';
import { compose, type Hop, type HopAnswer, type HopPolicy, type OpenResponse, type ResponseHeaders, type SendHop } from '../src/fetch/hop.js';
import { Politeness } from '../src/fetch/politeness.js';
import { followRedirects } from '../src/fetch/redirect-policy.js';
import { retryTransient, type RetryConfig } from '../src/fetch/retry.js';
import type { Target } from '../src/fetch/target.js';
import type { FetchRequest, FetchRow } from '../src/fetch/types.js';

// Each policy of the chain (hop.ts) alone, under a scripted `next`: the network parts are the
// fetch-*.test.ts files' real servers; here the decisions, one at a time.

const target = (host: string): Target => ({ host, ip: '192.0.2.7', connectPort: 443, origin: `https://${host}`, routeKey: host, hostHeader: host, path: '/ads.txt', viaConnectTo: false });

/** A response as sendOnce gives it; `finished` tells whether its slots were let go. */
function response(status: number, headers: ResponseHeaders = {}, body: readonly string[] = []): OpenResponse & { finished: boolean } {
  const stream = Object.assign(Readable.from(body.map((s) => Buffer.from(s))), { dump: async () => {} });
  const url = new URL('https://a.example/ads.txt');
  const r = {
    res: { statusCode: status, headers, body: stream } as unknown as OpenResponse['res'],
    target: target(url.hostname),
    deadlineAt: Number.POSITIVE_INFINITY,
    abortCode: () => null,
    finished: false,
    finish: () => void (r.finished = true),
  };
  return r;
}

function answerOf(hop: Hop, r: OpenResponse | null, error: HopAnswer['error'] = null, ip: string | null = '192.0.2.7'): HopAnswer {
  return { url: hop.url, response: r, status: r?.res.statusCode ?? null, headers: r?.res.headers ?? null, error, ip, attempts: 1, redirects: [] };
}

/** A `next` that answers from a script, one entry per call, and records the hops it was sent. */
function scripted(steps: Array<(hop: Hop) => HopAnswer>): SendHop & { hops: Hop[] } {
  const hops: Hop[] = [];
  const send = async (hop: Hop) => {
    hops.push(hop);
    const step = steps[hops.length - 1];
    if (!step) throw new Error(`unexpected request ${hops.length} to ${hop.url.href}`);
    return step(hop);
  };
  return Object.assign(send, { hops });
}

const hop = (url = 'https://a.example/ads.txt', budgetMs = 30_000): Hop => ({ url: new URL(url), kind: 'ads.txt', headers: {}, budget: { remainingMs: budgetMs }, signal: undefined, closeConnection: false, attempt: 1 });

describe('compose: the shape of undici Dispatcher.compose', () => {
  it('wraps in order: the first policy listed is innermost and sees the answer first', async () => {
    const seen: string[] = [];
    const tag = (name: string): HopPolicy => (next) => async (h) => {
      seen.push(`${name}>`);
      const a = await next(h);
      seen.push(`<${name}`);
      return a;
    };
    const base = scripted([(h) => answerOf(h, null, 'connect')]);
    const a = await compose(base, tag('inner'), tag('outer'))(hop());
    expect(seen).toEqual(['outer>', 'inner>', '<inner', '<outer']);
    expect(a.error).toBe('connect');
    expect(await compose(base)(hop()).catch((e: Error) => e.message)).toMatch(/unexpected request 2/); // no policy: the sender itself
  });
});

describe('followRedirects', () => {
  it('sends each redirect on as a new hop, discarding its body; redirects and attempts cover the chain', async () => {
    const r1 = response(301, { location: '/b.txt' });
    const r2 = response(302, { location: 'https://other.example/c.txt' });
    const ok = response(200, { 'content-type': 'text/plain' });
    const next = scripted([(h) => answerOf(h, r1), (h) => ({ ...answerOf(h, r2), attempts: 2 }), (h) => answerOf(h, ok)]);
    const a = await followRedirects(next)(hop());
    expect(next.hops.map((h) => h.url.href)).toEqual(['https://a.example/ads.txt', 'https://a.example/b.txt', 'https://other.example/c.txt']);
    expect(a.redirects).toEqual(['https://a.example/b.txt', 'https://other.example/c.txt']);
    expect(a.attempts).toBe(4);
    expect(a.response).toBe(ok);
    expect(a.url.href).toBe('https://other.example/c.txt');
    expect([r1.finished, r2.finished, ok.finished]).toEqual([true, true, false]);
  });

  it('a refused redirect ends the chain with its code and keeps the redirect status for the row (ads.txt §3.1)', async () => {
    const out = response(301, { location: 'https://third.example/ads.txt' });
    const again = response(301, { location: 'https://fourth.example/ads.txt' });
    const next = scripted([(h) => answerOf(h, out), (h) => answerOf(h, again)]);
    const a = await followRedirects(next)(hop());
    expect(a).toMatchObject({ error: 'redirect_scope', status: 301, response: null, redirects: ['https://third.example/ads.txt'] });
    expect(a.url.href).toBe('https://third.example/ads.txt');
    expect(again.finished).toBe(true);
  });

  it('a redirect to a host that then fails: the row has no status and none of the headers of the redirect', async () => {
    const moved = response(301, { location: 'https://gone.example/ads.txt', 'content-type': 'text/html', etag: '"r"' });
    const a = await followRedirects(scripted([(h) => answerOf(h, moved), (h) => answerOf(h, null, 'dns_nxdomain', null)]))(hop());
    const req: FetchRequest = { url: 'https://a.example/ads.txt', kind: 'ads.txt', subject: 'a.example' };
    const { row } = chainResult({ req, url: req.url, host: 'a.example', startedAt: new Date(0), t0: 0 }, a, NO_BODY);
    expect(row).toMatchObject({ status_code: null, error: 'dns_nxdomain', content_type: null, etag: null, final_url: 'https://gone.example/ads.txt', redirects: ['https://gone.example/ads.txt'], attempts: 2, remote_ip: null });
  });

  it('passes on answers that are not redirects, and failures, untouched', async () => {
    const notFound = response(404);
    expect((await followRedirects(scripted([(h) => answerOf(h, notFound)]))(hop())).response).toBe(notFound);
    expect(notFound.finished).toBe(false);
    const failedAnswer = await followRedirects(scripted([(h) => answerOf(h, null, 'tls')]))(hop());
    expect(failedAnswer).toMatchObject({ error: 'tls', redirects: [], attempts: 1 });
  });
});

describe('retryTransient', () => {
  const config = (over: Partial<RetryConfig> = {}): RetryConfig & { slept: number[] } => {
    const slept: number[] = [];
    return { retries: 2, retryBaseMs: 100, retryMaxMs: 1000, random: () => 0.5, maxRetryAfterMs: 60_000, now: () => 0, sleep: async (ms) => void slept.push(ms), slept, ...over };
  };

  it('asks again after a reset, sleeping the backoff, at most `retries` times; attempts count every request', async () => {
    const c = config();
    const next = scripted([(h) => answerOf(h, null, 'reset'), (h) => answerOf(h, null, 'reset', null), (h) => answerOf(h, null, 'reset', null)]);
    const a = await retryTransient(c)(next)(hop());
    expect(a).toMatchObject({ error: 'reset', attempts: 3, ip: '192.0.2.7' }); // the address met before the later failures
    expect(c.slept).toEqual([75, 150]); // equal jitter: half of 100·2^(n-1) fixed, half × 0.5
    expect(next.hops.map((h) => h.attempt)).toEqual([1, 2, 3]);
  });

  it('does not ask again after an answer or a failure that is no transient one', async () => {
    for (const a of [answerOf(hop(), null, 'connect'), answerOf(hop(), null, 'dns_nxdomain'), answerOf(hop(), response(500)), answerOf(hop(), null, 'challenge')]) {
      const next = scripted([() => a]);
      expect(await retryTransient(config())(next)(hop())).toBe(a);
      expect(next.hops).toHaveLength(1);
    }
  });

  it('asks again after a 503, discarding it and waiting on its own (the backoff without Retry-After, else Retry-After), until an answer comes', async () => {
    const busy = response(503);
    const ok = response(200);
    const c = config();
    const a = await retryTransient(c)(scripted([(h) => answerOf(h, busy), (h) => answerOf(h, ok)]))(hop());
    expect(a.response).toBe(ok);
    expect(a.attempts).toBe(2);
    expect(busy.finished).toBe(true);
    expect(c.slept).toEqual([75]); // no hold policy inside: the retry's own backoff
    const limited = response(429, { 'retry-after': '7' });
    const c2 = config();
    const b = await retryTransient(c2)(scripted([(h) => answerOf(h, limited), (h) => answerOf(h, response(200))]))(hop());
    expect([b.status, b.attempts, c2.slept]).toEqual([200, 2, [7000]]);
  });

  it('keeps a 429 whose Retry-After is beyond maxRetryAfterMs, and stops when the chain budget is spent', async () => {
    const far = response(429, { 'retry-after': '3600' });
    expect((await retryTransient(config())(scripted([(h) => answerOf(h, far)]))(hop())).response).toBe(far);
    const spent = response(503);
    expect((await retryTransient(config())(scripted([(h) => answerOf(h, spent)]))(hop(undefined, 0))).response).toBe(spent);
    const reset = scripted([(h) => answerOf(h, null, 'reset')]);
    expect((await retryTransient(config())(reset)(hop(undefined, 0))).error).toBe('reset');
  });

  it('ends with `aborted` when the caller aborts during the backoff sleep', async () => {
    const c = config({ sleep: async () => Promise.reject(new Error('aborted')) });
    const a = await retryTransient(c)(scripted([(h) => answerOf(h, null, 'reset')]))(hop());
    expect(a).toMatchObject({ error: 'aborted', attempts: 1 });
  });
});

describe('holdWalls and WallHolds', () => {
  const setup = () => {
    let now = 1_000_000;
    const config: HoldConfig = { wallHoldMs: 30_000, maxRetryAfterMs: 60_000, ipBackoffMs: 5_000, retryBaseMs: 100, retryMaxMs: 1000, random: () => 0, now: () => now };
    const politeness = new Politeness({ perHost: 1, perIp: 16, concurrency: 8, now: () => now, sleep: async () => {} });
    const walls = new WallHolds(politeness, config);
    return { politeness, walls, policy: holdWalls(walls, config.now), advance: (ms: number) => void (now += ms) };
  };

  it('a wall by its headers ends with `challenge`, keeps the status, discards the body, holds host and address, counts the vendor', async () => {
    const { politeness, walls, policy } = setup();
    const wall = response(403, { 'cf-mitigated': 'challenge' });
    const a = await policy(scripted([(h) => answerOf(h, wall)]))(hop());
    expect(a).toMatchObject({ error: 'challenge', status: 403, response: null });
    expect(wall.finished).toBe(true);
    expect(walls.counters.wallVendors).toEqual({ cloudflare: 1 });
    expect(politeness.clocks.waitMs('a.example')).toBe(30_000);
    expect(politeness.ipClocks.waitMs('192.0.2.7')).toBe(5_000);
  });

  it('a wall found in the first bytes of a 503 page; its Retry-After sets the hold', async () => {
    const { politeness, walls, policy } = setup();
    const page = response(503, { 'content-type': 'text/html', 'retry-after': '10' }, ['<html><head><title>Just a moment...</title>']);
    const a = await policy(scripted([(h) => answerOf(h, page)]))(hop());
    expect(a.error).toBe('challenge');
    expect(walls.counters.wallVendors).toEqual({ cloudflare: 1 });
    expect(politeness.clocks.waitMs('a.example')).toBe(10_000);
  });

  it('a 429 holds the host by Retry-After and the address at most ipBackoffMs; a 503 without one holds the host only, by backoff', async () => {
    const { politeness, walls, policy, advance } = setup();
    const limited = response(429, { 'retry-after': '20' });
    const a = await policy(scripted([(h) => answerOf(h, limited)]))(hop());
    expect(a.response).toBe(limited); // passed on: retryTransient decides
    expect(politeness.clocks.waitMs('a.example')).toBe(20_000);
    expect(politeness.ipClocks.waitMs('192.0.2.7')).toBe(5_000);
    advance(20_000);
    await policy(scripted([(h) => answerOf(h, response(503))]))({ ...hop(), attempt: 2 });
    expect(politeness.clocks.waitMs('a.example')).toBe(100); // equal jitter of 100·2 with random 0
    expect(politeness.ipClocks.waitMs('192.0.2.7')).toBe(0);
    expect(walls.counters.wallVendors).toEqual({});
    expect(politeness.backoffs).toEqual({ hosts: 2, ips: 1 });
  });

  it('leaves other answers alone', async () => {
    const { politeness, policy } = setup();
    const plain = response(403, { 'content-type': 'text/plain' }, ['forbidden']);
    expect((await policy(scripted([(h) => answerOf(h, plain)]))(hop())).response).toBe(plain);
    expect(politeness.backoffs).toEqual({ hosts: 0, ips: 0 });
  });
});

describe('fallbackUrl (ads.txt 1.1 §3.1, RFC 9309 §2.3)', () => {
  const row = (over: Partial<FetchRow>): FetchRow => ({ ...({} as FetchRow), url: 'https://a.example/ads.txt', status_code: null, redirects: [], error: 'connect', ...over });

  it('tries http:// only after an HTTPS try without an HTTP answer', () => {
    for (const error of ['connect', 'tls', 'timeout', 'unresponsive', 'reset', 'protocol']) expect(fallbackUrl('ads.txt', row({ error }))).toBe('http://a.example/ads.txt');
    expect(fallbackUrl('robots.txt', row({ url: 'https://a.example:8443/robots.txt' }))).toBe('http://a.example:8443/robots.txt');
    for (const error of ['dns_nxdomain', 'blocked_address', 'challenge', 'redirect_scope', null]) expect(fallbackUrl('ads.txt', row({ error }))).toBeNull();
    expect(fallbackUrl('ads.txt', row({ status_code: 404, error: null }))).toBeNull();
    expect(fallbackUrl('ads.txt', row({ redirects: ['https://b.example/ads.txt'] }))).toBeNull();
    expect(fallbackUrl('ads.txt', row({ url: 'http://a.example/ads.txt' }))).toBeNull();
    expect(fallbackUrl('sellers.json', row({ url: 'https://a.example/sellers.json' }))).toBeNull();
    expect(fallbackUrl('store_page', row({}))).toBeNull();
  });
});

describe('chainResult and outcomeOf: the row made once, the outcome from it', () => {
  const req: FetchRequest = { url: 'https://a.example/ads.txt', kind: 'ads.txt', subject: 'a.example', validators: { etag: '"v1"' } };
  const start: ChainStart = { req, url: req.url, host: 'a.example', startedAt: new Date(0), t0: 0 };

  it('a 304 to a conditional request is notModified; the outcome repeats the row', () => {
    const r = response(304, { etag: '"v1"', 'cache-control': 'max-age=60', 'content-type': 'text/plain' });
    const c = chainResult(start, { ...answerOf(hop(), r), response: null, attempts: 2 }, NO_BODY);
    expect(c.row).toMatchObject({ url: req.url, host: 'a.example', subject: 'a.example', file_kind: 'ads.txt', status_code: 304, final_url: req.url, etag: '"v1"', content_type: 'text/plain', error: null, attempts: 2, remote_ip: '192.0.2.7', bytes: 0, sha256: null });
    const o = outcomeOf([c.row], c);
    expect(o).toMatchObject({ status: 304, notModified: true, etag: '"v1"', contentType: 'text/plain', cacheControl: 'max-age=60', error: null, body: null });
    expect(chainResult({ ...start, req: { ...req, validators: {} } }, answerOf(hop(), r), NO_BODY).notModified).toBe(false);
  });

  it('a body read error wins over the answer; no request at all (bad URL) is a row without status', () => {
    const c = chainResult(start, answerOf(hop(), response(200)), { bytes: 5, truncated: true, sha256: 'ab', body: null, error: 'too_large' });
    expect(c.row).toMatchObject({ status_code: 200, error: 'too_large', bytes: 5, truncated: true, sha256: 'ab' });
    expect(outcomeOf([c.row], c)).toMatchObject({ error: 'too_large', truncated: true, bytes: 5 });
    const bad = chainResult({ ...start, url: 'ftp://x', host: null }, null, { ...NO_BODY, error: 'bad_url' });
    expect(bad.row).toMatchObject({ url: 'ftp://x', host: null, status_code: null, final_url: null, redirects: [], error: 'bad_url', attempts: 0, remote_ip: null });
  });
});

describe('readBody', () => {
  const walls = () => new WallHolds(new Politeness({ perHost: 1, perIp: 1, concurrency: 1, now: () => 0, sleep: async () => {} }), { wallHoldMs: 1000, maxRetryAfterMs: 60_000, ipBackoffMs: 500, retryBaseMs: 1, retryMaxMs: 1, random: () => 0, now: () => 0 });
  const meta = (r: OpenResponse, maxBytes: number) => ({ url: 'https://a.example/ads.txt', finalUrl: 'https://a.example/ads.txt', status: 200, headers: r.res.headers, contentType: (r.res.headers['content-type'] as string) ?? null, maxBytes, deadlineAt: r.deadlineAt });
  const text = async (body: AsyncIterable<Uint8Array>) => {
    let s = '';
    for await (const c of body) s += Buffer.from(c).toString();
    return s;
  };

  it('hands the consumer the body cut at the cap and hashes what it read', async () => {
    const r = response(200, { 'content-type': 'text/plain' }, ['abcdef', 'ghij']);
    const read = await readBody(r, meta(r, 8), text, walls());
    expect(read).toMatchObject({ body: 'abcdefgh', bytes: 8, truncated: true, error: 'too_large' });
    expect(read.sha256).toBe('9c56cc51b374c3ba189210d5b6d4bf57790d351c96c47c02190ecf1e430635ab'); // sha256("abcdefgh")
    expect(r.finished).toBe(true);
  });

  it('a 2xx HTML interstitial is a wall: the consumer is not called, the vendor counted', async () => {
    const w = walls();
    const r = response(200, { 'content-type': 'text/html' }, ['<html><script src="/_Incapsula_Resource?x"></script>']);
    let called = false;
    const read = await readBody(r, meta(r, 1000), async () => void (called = true), w);
    expect(read).toMatchObject({ error: 'challenge', bytes: 0, body: null });
    expect(called).toBe(false);
    expect(w.counters.wallVendors).toEqual({ imperva: 1 });
    const own = response(200, { 'content-type': 'text/html' }, ['<html><body>our page</body></html>']);
    expect((await readBody(own, meta(own, 1000), text, w)).body).toBe('<html><body>our page</body></html>');
  });
});
