import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { challengeFromBody, challengeFromHeaders } from '../src/fetch/challenge.js';
import { Fetcher, FetchCounters, resolveFetchConfig, type FetchOptions } from '../src/fetch/index.js';
import { RunStats } from '../pipelines/run-stats.js';
import { statusFromFetch } from '../src/resolve/file-status.js';
import { noDns, readText, startLocalWeb, type LocalWeb } from './helpers/local-server.js';
import { createTestTls, type TestTls } from './helpers/tls.js';

/** Bot walls and rate limits as outcomes: `challenge` → files.status `blocked`; 429 → `rate_limited`; holds per host and address. */

let tls: TestTls;
let web: LocalWeb;
const fetchers: Fetcher[] = [];

beforeAll(async () => {
  tls = await createTestTls();
  web = await startLocalWeb(tls);
});
afterAll(async () => {
  await Promise.all(fetchers.map((f) => f.close()));
  await web.close();
});

function fakeTime(start = Date.UTC(2026, 10, 25)) {
  let t = start;
  const sleeps: number[] = [];
  return { now: () => t, sleep: async (ms: number) => void (sleeps.push(ms), (t += ms)), sleeps };
}

function fetcher(extra: FetchOptions = {}, counters?: FetchCounters): Fetcher {
  const f = new Fetcher(resolveFetchConfig({ connectTo: web.connectTo, caCerts: [tls.caPem], resolver: noDns, retries: 0, ...extra }), counters);
  fetchers.push(f);
  return f;
}

const HTML = { 'content-type': 'text/html; charset=UTF-8' };
const JUST_A_MOMENT = '<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title><script src="/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1"></script></head><body></body></html>';

describe('challenge detection (src/fetch/challenge.ts)', () => {
  it('headers decide first: Cloudflare cf-mitigated, AWS WAF, Sucuri, DataDome', () => {
    expect(challengeFromHeaders(403, { 'cf-mitigated': 'challenge' })).toBe('cloudflare');
    expect(challengeFromHeaders(202, { 'x-amzn-waf-action': 'challenge' })).toBe('aws_waf');
    expect(challengeFromHeaders(405, { 'x-amzn-waf-action': 'captcha' })).toBe('aws_waf');
    expect(challengeFromHeaders(403, { 'x-sucuri-block': 'BLK' })).toBe('sucuri');
    expect(challengeFromHeaders(403, { 'x-datadome': 'protected' })).toBe('datadome');
    // A DataDome-protected site that answers 200 is the site's answer.
    expect(challengeFromHeaders(200, { 'x-datadome': 'protected' })).toBeNull();
    expect(challengeFromHeaders(403, { server: 'cloudflare' })).toBeNull();
  });
  it('the body decides otherwise, on vendor markers only', () => {
    const b = (s: string) => Buffer.from(s);
    expect(challengeFromBody(b(JUST_A_MOMENT))).toBe('cloudflare');
    expect(challengeFromBody(b('<html><script src="/_Incapsula_Resource?SWJIYLWA=1"></script></html>'))).toBe('imperva');
    expect(challengeFromBody(b('<html><script src="https://geo.captcha-delivery.com/captcha/?initialCid=x"></script></html>'))).toBe('datadome');
    expect(challengeFromBody(b('<HTML><HEAD><TITLE>Access Denied</TITLE></HEAD><BODY>Reference&#32;#18.1 <a href="https://errors.edgesuite.net/18.1">x</a></BODY></HTML>'))).toBe('akamai');
    expect(challengeFromBody(b('<div id="px-captcha"></div>'))).toBe('perimeterx');
    expect(challengeFromBody(b('<html><head><title>403 Forbidden</title></head><body>nginx</body></html>'))).toBeNull();
    expect(challengeFromBody(b('<html><body>Just a moment, we are loading</body></html>'))).toBeNull();
  });
  it('a challenge is `blocked`; a plain 403 stays `unauthorized`; 429 is `rate_limited`', () => {
    expect(statusFromFetch(403, 'challenge')).toBe('blocked');
    expect(statusFromFetch(503, 'challenge')).toBe('blocked');
    expect(statusFromFetch(202, 'challenge')).toBe('blocked');
    expect(statusFromFetch(403, null)).toBe('unauthorized');
    expect(statusFromFetch(429, null)).toBe('rate_limited');
  });
});

describe('walls and rate limits through the fetcher', () => {
  it('records a challenge page as error `challenge` with its status, never retried, whatever the body encoding', async () => {
    web.reply('https://cf.example/ads.txt', 403, JUST_A_MOMENT, { ...HTML, 'cf-mitigated': 'challenge' });
    web.route('https://inc.example/ads.txt', (_req, res) => {
      res.writeHead(503, { ...HTML, 'content-encoding': 'gzip' }).end(gzipSync('<html><head><script src="/_Incapsula_Resource?x=1"></script></head><body>' + 'x'.repeat(100_000) + '</body></html>'));
    });
    web.reply('https://aws.example/ads.txt', 202, '', { 'x-amzn-waf-action': 'challenge' });
    web.reply('https://plain403.example/ads.txt', 403, '<html><title>403 Forbidden</title></html>', HTML);
    const t = fakeTime();
    const run = new RunStats();
    const f = fetcher({ now: t.now, sleep: t.sleep, retries: 2 }, run.fetch);
    const get = (h: string) => f.fetch({ url: `https://${h}/ads.txt`, kind: 'ads.txt', subject: h }, readText);
    const [cf, inc, aws, plain] = await Promise.all(['cf.example', 'inc.example', 'aws.example', 'plain403.example'].map(get));
    expect([cf!.status, cf!.error, cf!.body]).toEqual([403, 'challenge', null]);
    expect([inc!.status, inc!.error]).toEqual([503, 'challenge']);
    expect(inc!.rows[0]!.attempts).toBe(1); // a 503 wall is not retried like a transient 503
    expect([aws!.status, aws!.error, aws!.body]).toEqual([202, 'challenge', null]);
    expect([plain!.status, plain!.error]).toEqual([403, null]);
    expect(cf!.rows).toHaveLength(1); // no HTTP fallback: the wall is an HTTP answer
    const s = f.stats();
    expect(s.walls).toEqual({ cloudflare: 1, imperva: 1, aws_waf: 1 });
    expect(s.backoffs.hosts).toBe(3);
    // The run's progress line and manifest read the very counters the fetcher counted into.
    const shown = run.snapshot();
    expect([shown.walls, shown.backoffs.hosts, shown.fetch_errors, shown.requests]).toEqual([3, 3, s.errors, [cf, inc, aws, plain].reduce((n, o) => n + o!.rows.length, 0)]);
    expect(s.errors).toEqual({ challenge: 3 });
  });

  it('a 200 HTML interstitial is a wall too; the site\'s own HTML page and a robots.txt naming _Incapsula_Resource are read as before', async () => {
    const imperva = '<html>\n<head>\n<META NAME="robots" CONTENT="noindex,nofollow">\n<script src="/_Incapsula_Resource?SWJIYLWA=5074a744e2e3d891814e9a2dace20bd4">\n</script>\n<body>\n</body></html>';
    web.reply('https://imp200.example/robots.txt', 200, imperva, HTML);
    const soft404 = '<!doctype html><html><head><title>Not here</title></head><body>' + 'y'.repeat(40_000) + '</body></html>';
    web.reply('https://soft.example/ads.txt', 200, soft404, HTML);
    web.reply('https://own.example/robots.txt', 200, 'User-agent: *\nDisallow: /_Incapsula_Resource\n', { 'content-type': 'text/plain' });
    const f = fetcher();
    const a = await f.fetch({ url: 'https://imp200.example/robots.txt', kind: 'robots.txt', subject: 'imp200.example' }, readText);
    expect([a.status, a.error, a.body]).toEqual([200, 'challenge', null]);
    expect(statusFromFetch(a.status, a.error)).toBe('blocked');
    expect(f.stats().backoffs).toEqual({ hosts: 1, ips: 1 });
    const b = await f.fetch({ url: 'https://soft.example/ads.txt', kind: 'ads.txt', subject: 'soft.example' }, readText);
    expect([b.status, b.error, b.body]).toEqual([200, null, soft404]); // the peeked bytes reach the consumer once, in order
    expect(b.bytes).toBe(soft404.length);
    const c = await f.fetch({ url: 'https://own.example/robots.txt', kind: 'robots.txt', subject: 'own.example' }, readText);
    expect([c.error, c.body]).toEqual([null, 'User-agent: *\nDisallow: /_Incapsula_Resource\n']);
  });

  it('holds the walled host (wallHoldMs) and its address: the next request to it waits, others do not', async () => {
    web.reply('https://wall2.example/robots.txt', 403, JUST_A_MOMENT, { ...HTML, 'cf-mitigated': 'challenge' });
    web.reply('https://wall2.example/ads.txt', 200, 'x.com, 1, DIRECT\n', { 'content-type': 'text/plain' });
    const t = fakeTime();
    const backoffs: Array<[string, string, number]> = [];
    const f = fetcher({ now: t.now, sleep: t.sleep, wallHoldMs: 7000, ipBackoffMs: 500, onBackoff: (scope, key, ms) => backoffs.push([scope, key, ms]) });
    const first = await f.fetch({ url: 'https://wall2.example/robots.txt', kind: 'robots.txt', subject: 'wall2.example' }, readText);
    expect(first.error).toBe('challenge');
    expect(backoffs).toEqual([['host', 'wall2.example', 7000], ['ip', 'connect-to wall2.example', 500]]);
    const second = await f.fetch({ url: 'https://wall2.example/ads.txt', kind: 'ads.txt', subject: 'wall2.example' }, readText);
    expect(second.status).toBe(200);
    expect(t.sleeps).toEqual([7000]);
  });

  it('429: Retry-After honoured within maxRetryAfterMs, the address held at most ipBackoffMs; ends `rate_limited` when retries run out', async () => {
    let n = 0;
    web.route('https://busy.example/ads.txt', (_req, res) => {
      n++;
      res.writeHead(429, { 'retry-after': '120', 'content-type': 'text/plain' }).end('slow down');
    });
    const t = fakeTime();
    const backoffs: Array<[string, number]> = [];
    const f = fetcher({ now: t.now, sleep: t.sleep, retries: 1, maxRetryAfterMs: 10_000, ipBackoffMs: 2000, onBackoff: (scope, _k, ms) => backoffs.push([scope, ms]) });
    const out = await f.fetch({ url: 'https://busy.example/ads.txt', kind: 'ads.txt', subject: 'busy.example' }, readText);
    // Retry-After 120 s is past the 10 s cap: no wait, the answer stands and the host is held 10 s.
    expect(n).toBe(1);
    expect([out.status, out.error]).toEqual([429, null]);
    expect(statusFromFetch(out.status, out.error)).toBe('rate_limited');
    expect(backoffs).toEqual([['host', 10_000], ['ip', 2000]]);

    let m = 0;
    web.route('https://busy2.example/ads.txt', (_req, res) => {
      m++;
      if (m === 1) res.writeHead(429, { 'retry-after': '3' }).end();
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('x.com, 1, DIRECT\n');
    });
    const t2 = fakeTime();
    const f2 = fetcher({ now: t2.now, sleep: t2.sleep, retries: 1 });
    const ok = await f2.fetch({ url: 'https://busy2.example/ads.txt', kind: 'ads.txt', subject: 'busy2.example' }, readText);
    expect([ok.status, ok.body]).toEqual([200, 'x.com, 1, DIRECT\n']);
    expect(t2.sleeps).toEqual([3000]); // waited out exactly the Retry-After, once
    expect(f2.stats().backoffs).toEqual({ hosts: 1, ips: 1 });
  });
});
