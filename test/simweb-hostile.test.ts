import { createGunzip } from 'node:zlib';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_KINDS, hostileExpectation, startSimweb, type Simweb } from '../src/simweb/index.js';
import { parseHostileHost } from '../src/simweb/names.js';
import { get } from './simweb-client.js';

describe('simweb hostile hosts', () => {
  let w: Simweb;
  const o = () => ({ port: w.port, ca: w.caCertPem });
  const h = (kind: string) => `https://hostile-${kind}.test/ads.txt`;
  const p = (kind: string) => `http://hostile-${kind}.test/ads.txt`;

  beforeAll(async () => {
    w = await startSimweb({ hosts: 3000, trickleMs: 20 });
  });
  afterAll(async () => {
    await w?.close();
  });

  it('has one fixed host per kind, and sprinkles a few into the list', () => {
    expect(w.hostileHosts()).toHaveLength(HOSTILE_KINDS.length);
    for (const host of w.hostileHosts()) expect(w.describe(host).hostile).toBe(parseHostileHost(host)!.kind);
    const sprinkled = [...w.domains()].filter((d) => d.startsWith('hostile-'));
    expect(sprinkled.length).toBeGreaterThan(0); // 0.2 % of 3000
    expect(sprinkled.length).toBeLessThan(20);
    expect(w.describe(sprinkled[0]!).expect['ads.txt']!.status).toBe(hostileExpectation(parseHostileHost(sprinkled[0]!)!.kind));
  });

  it('redirect-loop comes back to where it started', async () => {
    const seen: string[] = [];
    let url = h('redirect-loop');
    for (let i = 0; i < 4; i++) {
      const a = await get(url, o());
      expect(a.status).toBe(302);
      url = new URL(a.headers.location!, url).href;
      seen.push(new URL(url).pathname);
    }
    expect(seen).toEqual(['/loop/a', '/loop/b', '/ads.txt', '/loop/a']);
  });

  it('redirect-chain takes 12 in-root hops (more than 10)', async () => {
    let url = h('redirect-chain');
    let hops = 0;
    for (;;) {
      const a = await get(url, o());
      if (a.status !== 302) break;
      hops++;
      url = new URL(a.headers.location!, url).href;
    }
    expect(hops).toBe(12);
  });

  it('redirect-out-twice leaves the root, then leaves again (ads.txt 1.1 §3.1)', async () => {
    const first = await get(h('redirect-out-twice'), o());
    const second = await get(first.headers.location!, o());
    expect(second.status).toBe(302);
    const hosts = [first.headers.location!, second.headers.location!].map((u) => new URL(u).hostname);
    expect(new Set(['hostile-redirect-out-twice.test', ...hosts]).size).toBe(3);
  });

  it('endless keeps sending valid lines until the client stops', async () => {
    const a = await get(h('endless'), { ...o(), maxBytes: 8 << 20 });
    expect(a.error).toBe('max_bytes');
    expect(a.body.length).toBeGreaterThanOrEqual(8 << 20);
    expect(a.headers['content-length']).toBeUndefined();
    expect((await get(`https://hostile-endless.test/robots.txt`, o())).status).toBe(404); // server still fine
  });

  it('trickle sends one line per interval', async () => {
    const t0 = performance.now();
    const a = await get(h('trickle'), { ...o(), maxBytes: 250 });
    expect(a.status).toBe(200);
    // ~3 lines of 86 bytes at 20 ms each.
    expect(performance.now() - t0).toBeGreaterThanOrEqual(40);
  });

  it('stall never answers', async () => {
    const a = await get(h('stall'), { ...o(), timeoutMs: 300 });
    expect(a).toMatchObject({ status: null, error: 'timeout' });
  });

  it('reset cuts the body short of its Content-Length', async () => {
    const a = await get(p('reset'), o());
    expect(a.status).toBe(200);
    expect(a.error).not.toBeNull();
    expect(a.body.length).toBeLessThan(Number(a.headers['content-length']));
  });

  it('gzip-bomb inflates far beyond what it sends, and is produced lazily', async () => {
    let wire = 0;
    let inflated = 0;
    await new Promise<void>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: w.port, path: '/ads.txt', headers: { host: 'hostile-gzip-bomb.test' } }, (res) => {
        expect(res.headers['content-encoding']).toBe('gzip');
        const gunzip = createGunzip();
        res.on('data', (c: Buffer) => (wire += c.length));
        res.pipe(gunzip);
        gunzip.on('data', (c: Buffer) => {
          inflated += c.length;
          if (inflated >= 256 << 20) {
            res.destroy();
            gunzip.destroy();
            resolve();
          }
        });
        gunzip.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    expect(inflated).toBeGreaterThanOrEqual(256 << 20);
    expect(wire).toBeLessThan(4 << 20);
  });

  it('huge-line sends one line far longer than any cap', async () => {
    const a = await get(h('huge-line'), { ...o(), maxBytes: 2 << 20 });
    expect(Number(a.headers['content-length'])).toBeGreaterThan(16 << 20);
    expect(a.body.includes(0x0a)).toBe(false);
  });

  it('big-file declares more than the 16 MiB ads.txt cap', async () => {
    const a = await get(h('big-file'), { ...o(), maxBytes: 1 << 20 });
    expect(Number(a.headers['content-length'])).toBeGreaterThan(16 << 20);
  });

  it('invalid-utf8 serves records around bytes that are not UTF-8', async () => {
    const a = await get(h('invalid-utf8'), o());
    expect(a.status).toBe(200);
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(a.body)).toThrow();
    expect(a.body.toString('latin1')).toContain('openx.com, 5678, DIRECT');
  });

  it('TLS failures: wrong name, expired, aborted handshake — while plain HTTP works', async () => {
    expect((await get(h('tls-wrong-name'), o())).error).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
    expect((await get(h('tls-expired'), o())).error).toBe('CERT_HAS_EXPIRED');
    expect((await get(h('tls-abort'), o())).error).toMatch(/EPROTO|ALERT_HANDSHAKE_FAILURE/) // a TLS protocol error, not a reset;
    for (const k of ['tls-wrong-name', 'tls-expired', 'tls-abort']) expect((await get(p(k), o())).status).toBe(200);
  });

  it('closes an aborted handshake\'s connection once the client has gone', async () => {
    // The server sends its alert on a socket it had paused to read the ClientHello: unless it
    // reads again, it never sees the client close, and the descriptor stays open for good.
    const openBefore = w.stats().open;
    for (let i = 0; i < 20; i++) expect((await get(h('tls-abort'), o())).error).toMatch(/EPROTO|ALERT_HANDSHAKE_FAILURE/);
    const deadline = Date.now() + 5000;
    while (w.stats().open > openBefore && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(w.stats().open).toBeLessThanOrEqual(openBefore);
  });

  it('https-only drops plain HTTP connections', async () => {
    expect((await get(p('https-only'), o())).status).toBeNull();
    expect((await get(h('https-only'), o())).status).toBe(200);
  });
});
