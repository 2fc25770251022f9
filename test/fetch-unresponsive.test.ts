import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Fetcher, resolveFetchConfig } from '../src/fetch/index.js';
import { UnresponsiveAddresses } from '../src/fetch/unresponsive.js';
import { startSynDead, type SynDead } from '../src/simweb/syn-dead.js';
import { noDns, readText, startLocalWeb, startSilentServer, type LocalWeb } from './helpers/local-server.js';
import { createTestTls, type TestTls } from './helpers/tls.js';

describe('UnresponsiveAddresses', () => {
  it('holds an address after N time-outs in a row, for the hold, then lets one connect try again', () => {
    let now = 0;
    const u = new UnresponsiveAddresses({ threshold: 2, holdMs: 1000, now: () => now });
    u.timedOut('10.0.0.1:443');
    expect(u.held('10.0.0.1:443')).toBe(false);
    u.timedOut('10.0.0.1:443');
    expect([u.held('10.0.0.1:443'), u.held('10.0.0.1:80'), u.marked, u.skipped]).toEqual([true, false, 1, 1]);
    now = 1001;
    expect(u.held('10.0.0.1:443')).toBe(false); // the one retry after the hold
    u.timedOut('10.0.0.1:443'); // …timed out again: held at once
    expect(u.held('10.0.0.1:443')).toBe(true);
    expect(u.marked).toBe(2);
  });

  it('forgets an address as soon as a connect to it succeeds (a busy shared address dropping one SYN is never held)', () => {
    const u = new UnresponsiveAddresses({ threshold: 2 });
    u.timedOut('a:443');
    u.connected('a:443');
    u.timedOut('a:443');
    expect(u.held('a:443')).toBe(false);
    expect(u.size).toBe(1);
  });

  it('is bounded: the oldest address goes first', () => {
    const u = new UnresponsiveAddresses({ threshold: 1, maxEntries: 3 });
    for (const k of ['a', 'b', 'c', 'd']) u.timedOut(k);
    expect(u.size).toBe(3);
    expect(['a', 'b', 'c', 'd'].map((k) => u.held(k))).toEqual([false, true, true, true]);
  });
});

/** A free TCP port on 127.0.0.1 (nothing listens on it afterwards). */
async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('a crawl meeting an address that drops SYNs', () => {
  const CONNECT_MS = 600;
  let tls: TestTls;
  let web: LocalWeb;
  let dead: SynDead;
  let silent: Awaited<ReturnType<typeof startSilentServer>>;
  let port: number;
  const fetchers: Fetcher[] = [];

  beforeAll(async () => {
    tls = await createTestTls();
    web = await startLocalWeb(tls);
    silent = await startSilentServer();
    port = await freePort();
    dead = await startSynDead(['127.0.0.1'], [port]);
  });
  afterAll(async () => {
    await Promise.all(fetchers.map((f) => f.close()));
    dead.close();
    await web.close();
    await silent.close();
  });

  const fetcher = (rules: string[], unresponsiveAfter?: number) => {
    const f = new Fetcher(
      resolveFetchConfig({ connectTo: [...rules, ...web.connectTo], caCerts: [tls.caPem], resolver: noDns, retries: 0, connectTimeoutMs: CONNECT_MS, ...(unresponsiveAfter === undefined ? {} : { unresponsiveAfter }) }),
    );
    fetchers.push(f);
    return f;
  };
  const get = (f: Fetcher, host: string) => f.fetch({ url: `https://${host}/ads.txt`, kind: 'ads.txt', subject: host }, readText);

  it('waits the connect deadline twice, then records later requests to that address as unresponsive without waiting', async (ctx) => {
    if (!dead.verified) ctx.skip('this kernel does not leave a connect to a full accept queue hanging');
    // Three sites on the dead address (HTTPS and HTTP both go to it), one healthy site beside them.
    const rules = ['a', 'b', 'c'].flatMap((h) => [`${h}.dead.example:443:127.0.0.1:${port}`, `${h}.dead.example:80:127.0.0.1:${port}`]);
    web.reply('https://ok.example/ads.txt', 200, 'x.com, 1, DIRECT\n');
    const f = fetcher(rules);
    const rows = [];
    for (const h of ['a', 'b', 'c']) {
      const o = await get(f, `${h}.dead.example`);
      expect(o.status).toBeNull();
      rows.push(...o.rows);
    }
    // HTTPS then HTTP per site, one address: the first two connects wait the deadline, the rest are not tried.
    expect(rows.map((r) => r.error)).toEqual(['timeout', 'timeout', 'unresponsive', 'unresponsive', 'unresponsive', 'unresponsive']);
    for (const r of rows.slice(0, 2)) expect(r.duration_ms).toBeGreaterThanOrEqual(CONNECT_MS * 0.9);
    for (const r of rows.slice(2)) expect(r.duration_ms).toBeLessThan(CONNECT_MS / 2);
    expect(f.stats().unresponsive).toEqual({ marked: 1, skipped: 4 });
    // Other addresses are not affected.
    const ok = await get(f, 'ok.example');
    expect([ok.status, ok.body]).toEqual([200, 'x.com, 1, DIRECT\n']);
  }, 20_000);

  it('never holds an address whose TCP handshake completes (a TLS stall is a time-out every time)', async () => {
    // The silent server accepts the connection and never speaks TLS.
    const rules = ['s1', 's2', 's3'].map((h) => `${h}.stall.example:443:127.0.0.1:${silent.port}`);
    const f = fetcher(rules);
    const errors = [];
    for (const h of ['s1', 's2', 's3']) {
      const o = await f.fetch({ url: `https://${h}.stall.example/robots.txt`, kind: 'robots.txt', subject: `${h}.stall.example` }, readText);
      errors.push(o.rows[0]!.error);
    }
    expect(errors).toEqual(['timeout', 'timeout', 'timeout']);
    expect(f.stats().unresponsive).toEqual({ marked: 0, skipped: 0 });
  }, 20_000);

  it('with unresponsiveAfter 0 every connect is tried', async (ctx) => {
    if (!dead.verified) ctx.skip('this kernel does not leave a connect to a full accept queue hanging');
    const f = fetcher([`z.dead.example:443:127.0.0.1:${port}`, `z.dead.example:80:127.0.0.1:${port}`], 0);
    const a = await get(f, 'z.dead.example');
    const b = await get(f, 'z.dead.example');
    expect([...a.rows, ...b.rows].map((r) => r.error)).toEqual(['timeout', 'timeout', 'timeout', 'timeout']);
  }, 20_000);
});
