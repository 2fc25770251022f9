import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Fetcher, resolveFetchConfig, type FetchOptions } from '../src/fetch/index.js';
import { closedPort, noDns, readText, startLocalWeb, startSilentServer, type LocalWeb } from './helpers/local-server.js';
import { createTestTls, type TestTls } from './helpers/tls.js';

let tls: TestTls;
let web: LocalWeb;
let silent: Awaited<ReturnType<typeof startSilentServer>>;
let refused: number;
const fetchers: Fetcher[] = [];

beforeAll(async () => {
  tls = await createTestTls();
  web = await startLocalWeb(tls);
  silent = await startSilentServer();
  refused = await closedPort();
});
afterAll(async () => {
  await Promise.all(fetchers.map((f) => f.close()));
  await web.close();
  await silent.close();
});

/** A Fetcher whose specific --connect-to rules come before the catch-all ones. */
function fetcherWith(rules: string[], extra: FetchOptions = {}): Fetcher {
  const f = new Fetcher(resolveFetchConfig({ connectTo: [...rules, ...web.connectTo], caCerts: [tls.caPem], resolver: noDns, retries: 0, ...extra }));
  fetchers.push(f);
  return f;
}

describe('ads.txt 1.1 §3.1 / spec-decisions: HTTPS first, HTTP only when HTTPS gave no HTTP answer', () => {
  it('falls back to HTTP when HTTPS connect is refused, one row per try', async () => {
    web.reply('http://refused.example/ads.txt', 200, 'a.com, 1, DIRECT\n');
    const f = fetcherWith([`refused.example:443:127.0.0.1:${refused}`]);
    const o = await f.fetch({ url: 'https://refused.example/ads.txt', kind: 'ads.txt', subject: 'refused.example' }, readText);
    expect(o.rows.map((r) => [r.url, r.status_code, r.error])).toEqual([
      ['https://refused.example/ads.txt', null, 'connect'],
      ['http://refused.example/ads.txt', 200, null],
    ]);
    expect(o.status).toBe(200);
    expect(o.error).toBeNull();
    expect(o.body).toBe('a.com, 1, DIRECT\n');
  });

  it('falls back when the TLS handshake fails (plain HTTP spoken on 443)', async () => {
    web.reply('http://plain.example/app-ads.txt', 200, 'b.com, 2, DIRECT\n');
    const f = fetcherWith([`plain.example:443:127.0.0.1:${web.httpPort}`]);
    const o = await f.fetch({ url: 'https://plain.example/app-ads.txt', kind: 'app-ads.txt', subject: 'plain.example' }, readText);
    expect(o.rows.map((r) => r.error)).toEqual(['tls', null]);
    expect(o.body).toContain('b.com');
  });

  it('falls back when the certificate is not trusted (no --cacert)', async () => {
    web.reply('https://untrusted.example/ads.txt', 200, 'never read\n');
    web.reply('http://untrusted.example/ads.txt', 200, 'c.com, 3, DIRECT\n');
    const f = new Fetcher(resolveFetchConfig({ connectTo: web.connectTo, resolver: noDns, retries: 0 }));
    fetchers.push(f);
    const o = await f.fetch({ url: 'https://untrusted.example/ads.txt', kind: 'ads.txt', subject: 'untrusted.example' }, readText);
    expect(o.rows.map((r) => [r.status_code, r.error])).toEqual([[null, 'tls'], [200, null]]);
  });

  it('falls back when HTTPS times out', async () => {
    web.reply('http://slow.example/ads.txt', 200, 'd.com, 4, DIRECT\n');
    const f = fetcherWith([`slow.example:443:127.0.0.1:${silent.port}`], { connectTimeoutMs: 150, headersTimeoutMs: 300 });
    const o = await f.fetch({ url: 'https://slow.example/ads.txt', kind: 'ads.txt', subject: 'slow.example' }, readText);
    expect(o.rows.map((r) => r.error)).toEqual(['timeout', null]);
    expect(o.body).toContain('d.com');
  });

  it('does NOT fall back when HTTPS answered 404 (an answer)', async () => {
    web.reply('https://nf.example/ads.txt', 404, 'not here');
    web.reply('http://nf.example/ads.txt', 200, 'e.com, 5, DIRECT\n');
    const f = fetcherWith([]);
    const o = await f.fetch({ url: 'https://nf.example/ads.txt', kind: 'ads.txt', subject: 'nf.example' }, readText);
    expect(o.rows).toHaveLength(1);
    expect([o.status, o.error, o.body]).toEqual([404, null, null]);
    expect(web.seen.some((s) => s.url === 'http://nf.example/ads.txt')).toBe(false);
  });

  it('does not fall back after an HTTPS redirect whose target fails', async () => {
    web.redirect('https://hop.example/ads.txt', 'https://www.hop.example/ads.txt');
    web.reply('http://www.hop.example/ads.txt', 200, 'never\n');
    web.reply('http://hop.example/ads.txt', 200, 'never\n');
    const f = fetcherWith([`www.hop.example:443:127.0.0.1:${refused}`]);
    const o = await f.fetch({ url: 'https://hop.example/ads.txt', kind: 'ads.txt', subject: 'hop.example' }, readText);
    expect(o.rows).toHaveLength(1);
    expect([o.status, o.error]).toEqual([null, 'connect']);
  });

  it('does not fall back on a DNS failure (HTTP would resolve the same name)', async () => {
    const f = new Fetcher(resolveFetchConfig({ resolver: noDns, retries: 0 }));
    fetchers.push(f);
    const o = await f.fetch({ url: 'https://nxdomain.example/ads.txt', kind: 'ads.txt', subject: 'nxdomain.example' }, readText);
    expect(o.rows.map((r) => [r.status_code, r.error, r.remote_ip])).toEqual([[null, 'dns_nxdomain', null]]);
  });

  it('robots.txt falls back too (RFC 9309 §2.3: a robots.txt is scoped to its scheme); sellers.json and store pages never do', async () => {
    web.reply('http://rb.example/robots.txt', 200, 'User-agent: *\n');
    const f = fetcherWith([`rb.example:443:127.0.0.1:${refused}`]);
    const robots = await f.fetch({ url: 'https://rb.example/robots.txt', kind: 'robots.txt', subject: 'rb.example' }, readText);
    expect(robots.rows.map((r) => [r.url, r.error])).toEqual([['https://rb.example/robots.txt', 'connect'], ['http://rb.example/robots.txt', null]]);
    for (const kind of ['sellers.json', 'store_page'] as const) {
      const o = await f.fetch({ url: 'https://rb.example/x', kind, subject: 'rb.example' }, readText);
      expect([kind, ...o.rows.map((r) => r.error)]).toEqual([kind, 'connect']);
    }
  });
});
