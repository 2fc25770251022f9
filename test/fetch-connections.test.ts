import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tables } from '../schemas/tables.js';
import { Fetcher, resolveFetchConfig, type FetchOptions } from '../src/fetch/index.js';
import { RouteTable, hostOrigin, routeKey } from '../src/fetch/routes.js';
import { noDns, readText } from './helpers/local-server.js';
import { createTestTls, type TestTls } from './helpers/tls.js';

/**
 * Connection reuse: requests go to one undici pool per *host*, and the connector
 * connects to the address chosen for that host (DNS + guard, or --connect-to). So one site's
 * requests share a TLS connection even when many sites share one address, and SNI is the host.
 */

interface Seen {
  host: string;
  path: string;
  servername: string;
  /** Client port of the connection: the same port means the same connection. */
  conn: number;
}

let tls: TestTls;
let server: https.Server;
let port: number;
let handshakes = 0;
const seen: Seen[] = [];
const fetchers: Fetcher[] = [];

beforeAll(async () => {
  tls = await createTestTls();
  server = https.createServer({ SNICallback: tls.SNICallback, keepAliveTimeout: 10_000 }, (req, res) => {
    const s = req.socket as TLSSocket;
    seen.push({ host: req.headers.host ?? '', path: req.url ?? '', servername: s.servername || '', conn: s.remotePort ?? 0 });
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`${req.headers.host}${req.url}\n`);
  });
  server.on('secureConnection', () => handshakes++);
  port = await new Promise<number>((r) => server.listen(0, '127.0.0.1', () => r((server.address() as AddressInfo).port)));
});
afterAll(async () => {
  await Promise.all(fetchers.map((f) => f.close()));
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

function fetcher(extra: FetchOptions = {}): Fetcher {
  const f = new Fetcher(resolveFetchConfig({ connectTo: [`:443:127.0.0.1:${port}`], caCerts: [tls.caPem], resolver: noDns, retries: 0, ...extra }));
  fetchers.push(f);
  return f;
}

function reset(): void {
  handshakes = 0;
  seen.length = 0;
}

describe('one pool per host, connecting to the chosen address', () => {
  it("robots.txt then ads.txt of one site share one TLS connection (SNI = the site's host)", async () => {
    reset();
    const f = fetcher();
    const a = await f.fetch({ url: 'https://site.example/robots.txt', kind: 'robots.txt', subject: 'site.example' }, readText);
    const b = await f.fetch({ url: 'https://site.example/ads.txt', kind: 'ads.txt', subject: 'site.example' }, readText);
    expect([a.body, b.body]).toEqual(['site.example/robots.txt\n', 'site.example/ads.txt\n']);
    expect(handshakes).toBe(1);
    expect(seen.map((s) => s.servername)).toEqual(['site.example', 'site.example']);
    expect(seen[0]!.conn).toBe(seen[1]!.conn);
  });

  it('sites sharing one address keep their own connections (no re-handshake when the SNI alternates)', async () => {
    reset();
    const f = fetcher();
    for (const path of ['/robots.txt', '/ads.txt', '/app-ads.txt']) {
      for (const host of ['one.example', 'two.example']) {
        const o = await f.fetch({ url: `https://${host}${path}`, kind: 'ads.txt', subject: host }, readText);
        expect(o.status).toBe(200);
      }
    }
    // Dispatching to the shared address made undici drop the connection at every SNI change (6 handshakes).
    expect(handshakes).toBe(2);
    const byHost = (h: string) => new Set(seen.filter((s) => s.host === h).map((s) => s.conn));
    expect(byHost('one.example').size).toBe(1);
    expect(byHost('two.example').size).toBe(1);
    expect(seen.every((s) => s.servername === s.host)).toBe(true);
  });

  it('connects to the address DNS gave (the URL host is never resolved again by the connector)', async () => {
    reset();
    const asked: string[] = [];
    const f = fetcher({
      connectTo: [`:443::${port}`], // only the port is rewritten: the address comes from our resolver
      resolver: async (h) => (asked.push(h), ['127.0.0.1']),
      blockPrivateAddresses: false,
    });
    const o = await f.fetch({ url: 'https://dns-only.example/ads.txt', kind: 'ads.txt', subject: 'dns-only.example' }, readText);
    expect(o.status).toBe(200);
    expect(o.rows[0]!.remote_ip).toBe('127.0.0.1');
    expect(asked).toEqual(['dns-only.example']);
    expect(seen[0]!.servername).toBe('dns-only.example');
  });

  it('holds a route only while a request is out, and closes idle pools after the keep-alive time', async () => {
    const f = fetcher({ keepAliveTimeoutMs: 100 });
    const hosts = Array.from({ length: 20 }, (_, i) => `p${i}.example`);
    await Promise.all(hosts.map((h) => f.fetch({ url: `https://${h}/ads.txt`, kind: 'ads.txt', subject: h }, readText)));
    expect(f.stats().routes).toBe(0);
    expect(f.stats().pools).toBeGreaterThan(0);
    // undici closes idle sockets after keepAliveTimeout; the Agent then drops each empty pool.
    for (let i = 0; i < 100 && f.stats().pools > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(f.stats().pools).toBe(0);
  });

  it('closeConnection: asks for Connection: close and leaves no idle connection (keep-alive is 10 s here)', async () => {
    reset();
    const f = fetcher({ keepAliveTimeoutMs: 10_000 });
    const connHeaders: (string | undefined)[] = [];
    const onRequest = (req: { headers: Record<string, string | string[] | undefined> }) => connHeaders.push(req.headers.connection as string | undefined);
    server.on('request', onRequest);
    try {
      const a = await f.fetch({ url: 'https://done.example/robots.txt', kind: 'robots.txt', subject: 'done.example' }, readText);
      const b = await f.fetch({ url: 'https://done.example/ads.txt', kind: 'ads.txt', subject: 'done.example', closeConnection: true }, readText);
      expect([a.status, b.status]).toEqual([200, 200]);
      // robots.txt kept the connection for ads.txt; ads.txt asked to close it.
      expect(handshakes).toBe(1);
      expect(connHeaders).toEqual(['keep-alive', 'close']);
      for (let i = 0; i < 100 && f.stats().pools > 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(f.stats().pools).toBe(0);
    } finally {
      server.off('request', onRequest);
    }
  });

  it('yields rows with exactly the columns of the fetches table', async () => {
    const f = fetcher();
    const o = await f.fetch({ url: 'https://cols.example/ads.txt', kind: 'ads.txt', subject: 'cols.example' }, readText);
    expect(Object.keys(o.rows[0]!).sort()).toEqual(tables.fetches.columns.map((c) => c.name).sort());
  });
});

describe('RouteTable', () => {
  it('keys the exchange side and the connector side alike; IPv6 literals get brackets in the origin', () => {
    expect(routeKey('https:', 'example.com', 443)).toBe('https:|example.com|443');
    expect(hostOrigin('https:', 'example.com', 443)).toBe('https://example.com:443');
    expect(hostOrigin('http:', '2001:db8::1', 8080)).toBe('http://[2001:db8::1]:8080');
    expect(new URL(hostOrigin('https:', '2001:db8::1', 443)).hostname).toBe('[2001:db8::1]');
  });

  it('keeps an entry while any hold is out; the newest address wins; release is idempotent', () => {
    const t = new RouteTable();
    const k = routeKey('https:', 'a.example', 443);
    const r1 = t.hold(k, '192.0.2.1', 443);
    const r2 = t.hold(k, '192.0.2.2', 8443);
    expect(t.lookup(k)).toMatchObject({ address: '192.0.2.2', port: 8443 });
    r1();
    r1();
    expect(t.size).toBe(1);
    r2();
    expect(t.size).toBe(0);
    expect(t.lookup(k)).toBeUndefined();
  });
});
