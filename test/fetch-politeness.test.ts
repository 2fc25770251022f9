import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Fetcher, resolveFetchConfig, type FetchOptions } from '../src/fetch/index.js';
import { closedPort, noDns, readText, startLocalWeb, type LocalWeb } from './helpers/local-server.js';
import { createTestTls, type TestTls } from './helpers/tls.js';

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

function fetcher(extra: FetchOptions = {}, rules: string[] = web.connectTo): Fetcher {
  const f = new Fetcher(resolveFetchConfig({ connectTo: rules, caCerts: [tls.caPem], resolver: noDns, retries: 0, ...extra }));
  fetchers.push(f);
  return f;
}

/** A handler that counts requests in progress per Host and overall, answering after `ms`. */
function concurrencyMeter(ms: number) {
  const active = new Map<string, number>();
  const maxPerHost = new Map<string, number>();
  let now = 0;
  let maxTotal = 0;
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const h = req.headers.host!;
    active.set(h, (active.get(h) ?? 0) + 1);
    maxPerHost.set(h, Math.max(maxPerHost.get(h) ?? 0, active.get(h)!));
    maxTotal = Math.max(maxTotal, ++now);
    setTimeout(() => {
      active.set(h, active.get(h)! - 1);
      now--;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    }, ms);
  };
  return { handler, maxPerHost, maxTotal: () => maxTotal };
}

/** Fake time: `sleep` advances the clock instead of waiting, and records what was asked. */
function fakeTime(start = Date.UTC(2026, 10, 22)) {
  let t = start;
  const sleeps: number[] = [];
  return { now: () => t, sleep: async (ms: number) => void (sleeps.push(ms), (t += ms)), sleeps };
}

describe('politeness (spec-decisions "Crawling as a good citizen")', () => {
  it('sends one request at a time per host by default, hosts in parallel', async () => {
    const m = concurrencyMeter(300);
    for (const h of ['ph1.example', 'ph2.example']) for (let i = 0; i < 4; i++) web.route(`https://${h}/p${i}`, m.handler);
    const f = fetcher();
    await Promise.all(['ph1.example', 'ph2.example'].flatMap((h) => [0, 1, 2, 3].map((i) => f.fetch({ url: `https://${h}/p${i}`, kind: 'store_page', subject: h }, readText))));
    expect(m.maxPerHost.get('ph1.example')).toBe(1);
    expect(m.maxPerHost.get('ph2.example')).toBe(1);
    expect(m.maxTotal()).toBe(2);
    expect(f.stats()).toMatchObject({ inFlight: 0, hostsTracked: 0, ipsTracked: 0 });
  });

  it('honours a larger perHost', async () => {
    const m = concurrencyMeter(300);
    for (let i = 0; i < 6; i++) web.route(`https://ph3.example/p${i}`, m.handler);
    const f = fetcher({ perHost: 3 });
    await Promise.all([0, 1, 2, 3, 4, 5].map((i) => f.fetch({ url: `https://ph3.example/p${i}`, kind: 'store_page', subject: 'x' }, readText)));
    expect(m.maxPerHost.get('ph3.example')).toBe(3);
  });

  it('caps requests per IP address that DNS gave, across hosts (shared hosting)', async () => {
    const m = concurrencyMeter(300);
    const hosts = ['ip1.example', 'ip2.example', 'ip3.example', 'ip4.example', 'ip5.example', 'ip6.example'];
    for (const h of hosts) web.route(`http://${h}:${web.httpPort}/ads.txt`, m.handler);
    // Every name resolves to one address (the guard is off so that address may be loopback).
    const f = fetcher({ perIp: 2, blockPrivateAddresses: false, resolver: async () => ['127.0.0.1'] }, []);
    await Promise.all(hosts.map((h) => f.fetch({ url: `http://${h}:${web.httpPort}/ads.txt`, kind: 'ads.txt', subject: h }, readText)));
    expect(m.maxTotal()).toBe(2);
  });

  it('does not apply the per-IP cap to --connect-to targets (operator-chosen, says nothing about sharing)', async () => {
    const m = concurrencyMeter(300);
    const hosts = ['ct1.example', 'ct2.example', 'ct3.example', 'ct4.example'];
    for (const h of hosts) web.route(`https://${h}/ads.txt`, m.handler);
    const f = fetcher({ perIp: 1 });
    await Promise.all(hosts.map((h) => f.fetch({ url: `https://${h}/ads.txt`, kind: 'ads.txt', subject: h }, readText)));
    expect(m.maxTotal()).toBe(4);
  });

  it('caps requests in flight overall (concurrency)', async () => {
    const m = concurrencyMeter(300);
    const hosts = ['c1.example', 'c2.example', 'c3.example', 'c4.example', 'c5.example'];
    for (const h of hosts) web.route(`https://${h}/ads.txt`, m.handler);
    const f = fetcher({ concurrency: 3 });
    await Promise.all(hosts.map((h) => f.fetch({ url: `https://${h}/ads.txt`, kind: 'ads.txt', subject: h }, readText)));
    expect(m.maxTotal()).toBe(3);
  });

  it('names adsnap and a URL in the User-Agent, and keeps the URL host in Host and SNI', async () => {
    web.reply('https://ua.example:8443/ads.txt', 200, 'x');
    web.reply('https://ua.example/ads.txt', 200, 'x');
    const f = fetcher({}, [...web.connectTo, `ua.example:8443:127.0.0.1:${web.httpsPort}`]);
    await f.fetch({ url: 'https://ua.example/ads.txt', kind: 'ads.txt', subject: 'ua.example' }, readText);
    const o = await f.fetch({ url: 'https://ua.example:8443/ads.txt', kind: 'ads.txt', subject: 'ua.example' }, readText);
    expect(o.status).toBe(200);
    const seen = web.seen.filter((s) => s.url.startsWith('https://ua.example'));
    expect(seen.map((s) => s.headers.host)).toEqual(['ua.example', 'ua.example:8443']);
    expect(seen[0]!.headers['user-agent']).toMatch(/^adsnap\/\S+ \(\+https?:\/\/\S+\)$/);
  });
});

describe('429 / Retry-After and retries', () => {
  it('waits out Retry-After (seconds) on 429, then retries', async () => {
    let n = 0;
    web.route('https://busy.example/ads.txt', (_q, res) => {
      if (n++ === 0) res.writeHead(429, { 'retry-after': '7' }).end();
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
    const time = fakeTime();
    const o = await fetcher({ retries: 2, ...time }).fetch({ url: 'https://busy.example/ads.txt', kind: 'ads.txt', subject: 'busy' }, readText);
    expect([o.status, o.body, o.rows[0]!.attempts]).toEqual([200, 'ok', 2]);
    expect(time.sleeps).toEqual([7000]);
  });

  it('accepts an HTTP-date Retry-After on 503', async () => {
    const time = fakeTime();
    let n = 0;
    web.route('https://maint.example/ads.txt', (_q, res) => {
      if (n++ === 0) res.writeHead(503, { 'retry-after': new Date(time.now() + 3000).toUTCString() }).end();
      else res.writeHead(200).end('back');
    });
    const o = await fetcher({ retries: 1, ...time }).fetch({ url: 'https://maint.example/ads.txt', kind: 'ads.txt', subject: 'm' }, readText);
    expect([o.status, o.body]).toEqual([200, 'back']);
    expect(time.sleeps).toEqual([3000]);
  });

  it('does not wait for a Retry-After beyond maxRetryAfterMs, but holds the host back for later requests', async () => {
    web.route('https://later.example/a', (_q, res) => void res.writeHead(429, { 'retry-after': '3600' }).end());
    web.reply('https://later.example/b', 200, 'b');
    const time = fakeTime();
    const f = fetcher({ retries: 3, maxRetryAfterMs: 10_000, ...time });
    const a = await f.fetch({ url: 'https://later.example/a', kind: 'ads.txt', subject: 'l' }, readText);
    expect([a.status, a.rows[0]!.attempts]).toEqual([429, 1]);
    expect(time.sleeps).toEqual([]);
    const b = await f.fetch({ url: 'https://later.example/b', kind: 'ads.txt', subject: 'l' }, readText);
    expect(b.status).toBe(200);
    expect(time.sleeps).toEqual([10_000]);
  });

  it('retries a transient 503 with backoff, bounded by `retries`', async () => {
    web.route('https://down.example/ads.txt', (_q, res) => void res.writeHead(503).end());
    const time = fakeTime();
    const o = await fetcher({ retries: 2, retryBaseMs: 100, random: () => 0, ...time }).fetch({ url: 'https://down.example/ads.txt', kind: 'ads.txt', subject: 'd' }, readText);
    expect([o.status, o.error, o.rows[0]!.attempts]).toEqual([503, null, 3]);
    expect(time.sleeps).toEqual([50, 100]); // equal jitter with random()=0: half of 100, half of 200
    expect(web.seen.filter((s) => s.url === 'https://down.example/ads.txt')).toHaveLength(3);
  });

  it('retries a connection reset, but not a 404, a 500, a refused connect or a DNS failure', async () => {
    let resets = 0;
    web.route('https://flaky.example/ads.txt', (req, res) => {
      if (resets++ === 0) req.socket.destroy();
      else res.writeHead(200).end('ok');
    });
    web.reply('https://gone.example/ads.txt', 404, '');
    web.reply('https://broken.example/ads.txt', 500, '');
    const time = fakeTime();
    const refused = await closedPort();
    const f = fetcher({ retries: 2, ...time }, [`refused.example:443:127.0.0.1:${refused}`, ...web.connectTo]);
    const flaky = await f.fetch({ url: 'https://flaky.example/ads.txt', kind: 'ads.txt', subject: 'f' }, readText);
    expect([flaky.status, flaky.rows[0]!.attempts]).toEqual([200, 2]);
    for (const [url, status, error] of [
      ['https://gone.example/ads.txt', 404, null],
      ['https://broken.example/ads.txt', 500, null],
      ['https://refused.example/sellers.json', null, 'connect'],
    ] as const) {
      const o = await f.fetch({ url, kind: 'sellers.json', subject: 'x' }, readText);
      expect([url, o.status, o.error, o.rows[0]!.attempts]).toEqual([url, status, error, 1]);
    }
    const dns = await fetcher({ retries: 2, ...time }, []).fetch({ url: 'https://unknown.example/robots.txt', kind: 'robots.txt', subject: 'x' }, readText);
    expect([dns.status, dns.error, dns.rows[0]!.attempts]).toEqual([null, 'dns_nxdomain', 1]);
    expect(time.sleeps).toHaveLength(1); // only the reset waited
  });
});

describe('conditional requests', () => {
  it('sends the validators it has; a 304 is notModified and the consumer is not called', async () => {
    web.route('https://cond.example/ads.txt', (req, res) => {
      if (req.headers['if-none-match'] === '"v1"' || req.headers['if-modified-since'] === 'Sat, 21 Nov 2026 00:00:00 GMT') return void res.writeHead(304, { etag: '"v1"' }).end();
      res.writeHead(200, { etag: '"v1"', 'last-modified': 'Sat, 21 Nov 2026 00:00:00 GMT', 'cache-control': 'max-age=600', 'content-type': 'text/plain' }).end('a.com, 1, DIRECT\n');
    });
    const f = fetcher();
    const first = await f.fetch({ url: 'https://cond.example/ads.txt', kind: 'ads.txt', subject: 'c' }, readText);
    expect([first.status, first.notModified, first.etag, first.lastModified, first.cacheControl]).toEqual([200, false, '"v1"', 'Sat, 21 Nov 2026 00:00:00 GMT', 'max-age=600']);
    let called = false;
    const consume = async () => void (called = true);
    const byEtag = await f.fetch({ url: 'https://cond.example/ads.txt', kind: 'ads.txt', subject: 'c', validators: { etag: first.etag } }, consume);
    expect([byEtag.status, byEtag.notModified, byEtag.error, called]).toEqual([304, true, null, false]);
    const byDate = await f.fetch({ url: 'https://cond.example/ads.txt', kind: 'ads.txt', subject: 'c', validators: { lastModified: first.lastModified } }, consume);
    expect([byDate.status, byDate.notModified]).toEqual([304, true]);
  });
});

describe('address guard (spec-decisions: never connect to what DNS says is private)', () => {
  const dnsMap: Record<string, string[]> = {
    'loop.example': ['127.0.0.1'],
    'private.example': ['10.1.2.3', '192.168.1.1'],
    'meta.example': ['169.254.169.254'],
    'v6.example': ['::1', '::ffff:127.0.0.1', 'fe80::1'],
  };
  const resolver = async (h: string) => {
    const a = dnsMap[h];
    if (!a) throw Object.assign(new Error('nx'), { code: 'ENOTFOUND' });
    return a;
  };

  it('refuses names resolving to loopback, private, link-local or metadata addresses: blocked_address', async () => {
    const before = web.seen.length;
    const f = fetcher({ resolver }, []);
    for (const h of Object.keys(dnsMap)) {
      const o = await f.fetch({ url: `https://${h}/ads.txt`, kind: 'ads.txt', subject: h }, readText);
      expect([h, o.status, o.error, o.rows.length]).toEqual([h, null, 'blocked_address', 1]);
    }
    const ip = await f.fetch({ url: `http://127.0.0.1:${web.httpPort}/robots.txt`, kind: 'robots.txt', subject: 'ip' }, readText);
    expect(ip.error).toBe('blocked_address');
    expect(web.seen.length).toBe(before);
  });

  it('connects to a loopback address given by --connect-to (operator-chosen), or when the guard is off', async () => {
    web.reply(`http://loop.example:${web.httpPort}/ads.txt`, 200, 'ok');
    const off = await fetcher({ resolver, blockPrivateAddresses: false }, []).fetch({ url: `http://loop.example:${web.httpPort}/ads.txt`, kind: 'ads.txt', subject: 'l' }, readText);
    expect([off.status, off.body, off.rows[0]!.remote_ip]).toEqual([200, 'ok', '127.0.0.1']);
    web.reply('https://loop.example/ads.txt', 200, 'via connect-to');
    const viaRule = await fetcher({ resolver }).fetch({ url: 'https://loop.example/ads.txt', kind: 'ads.txt', subject: 'l' }, readText);
    expect(viaRule.body).toBe('via connect-to');
  });
});

describe('caller abort', () => {
  it('ends a request with `aborted` when the caller signal fires', async () => {
    web.route('https://hold.example/ads.txt', () => {
      /* never answers */
    });
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 50);
    const o = await fetcher().fetch({ url: 'https://hold.example/ads.txt', kind: 'ads.txt', subject: 'h', signal: ctl.signal }, readText);
    expect([o.status, o.error, o.rows.length]).toEqual([null, 'aborted', 1]);
  });
});
