import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimweb, type RequestInfo, type Simweb } from '../src/simweb/index.js';
import { repoRoot } from './helpers/corpus.js';
import { get, miniCrawl } from './simweb-client.js';

const fixturesDir = path.join(repoRoot, 'data-samples/simweb-fixtures');

describe('simweb default fixture set (data-samples/simweb-fixtures)', () => {
  let w: Simweb;
  const seen: RequestInfo[] = [];
  const o = () => ({ port: w.port, ca: w.caCertPem });

  beforeAll(async () => {
    w = await startSimweb({ hosts: 10, fixturesDir, onRequest: (i) => seen.push(i) });
  });
  afterAll(async () => {
    await w?.close();
  });

  it('loads every host directory, and domains.txt names only fixture hosts', async () => {
    const hosts = new Set(w.fixtureHosts());
    expect(hosts.size).toBeGreaterThanOrEqual(25);
    const listed = (await readFile(path.join(fixturesDir, 'domains.txt'), 'utf8')).trim().split('\n');
    for (const d of listed) expect(hosts.has(d)).toBe(true);
    expect(w.describe('pub-referrals.test')).toMatchObject({ role: 'fixture', subdomains: [] });
    expect(w.describe('pub-referrals.test').about).toContain('subdomain=');
  });

  it('each fixture host serves what its _routes.json "expect" says a crawl must record', async () => {
    let checked = 0;
    for (const host of w.fixtureHosts()) {
      for (const kind of ['ads.txt', 'app-ads.txt'] as const) {
        const want = w.describe(host).expect[kind];
        if (!want) continue;
        const got = await miniCrawl(host, kind, o());
        expect({ host, kind, status: got.status, records: got.records }).toEqual({ host, kind, status: want.status, records: want.records });
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(20);
  });

  it('serves the redirect, transport and robots cases exactly', async () => {
    expect((await get('https://www-canonical.test/ads.txt', o())).headers.location).toBe('https://www.www-canonical.test/ads.txt');
    expect((await get('http://http-to-https.test/ads.txt', o())).headers.location).toBe('https://http-to-https.test/ads.txt');
    expect((await get('https://http-only.test/ads.txt', o())).status).toBeNull();
    const once = await miniCrawl('redirect-out-once.test', 'ads.txt', o());
    expect(once.finalUrl).toBe('https://ads-host-a.test/redirect-out-once.test/ads.txt');
    expect((await get('https://robots-disallow.test/robots.txt', o())).body.toString()).toMatch(/^User-agent: adsnap\nDisallow: \/\n/);
    const wrong = await get('https://wrong-type.test/ads.txt', o());
    expect(wrong.headers['content-type']).toBe('text/html; charset=utf-8');
    expect((await get('https://empty.test/ads.txt', o())).body.length).toBe(0);
    expect((await get('https://server-error.test/robots.txt', o())).status).toBe(500);
  });

  it('serves the store listing and the developer site; other store paths fall through to the synthetic store', async () => {
    const page = await get('https://play.google.com/store/apps/details?id=com.simfix.puzzle', o());
    expect(page.body.toString()).toContain('<meta name="appstore:developer_url" content="https://games.appdev.test/puzzle">');
    const offline = await get('https://play.google.com/store/apps/details?id=com.simfix.offline', o());
    expect(offline.body.toString()).toContain('<meta name="appstore:developer_url" content="">');
    expect((await get('https://games.appdev.test/app-ads.txt', o())).status).toBe(404);
    expect((await get('https://appdev.test/app-ads.txt', o())).status).toBe(200);
    const synthetic = [...w.apps()].find((u) => u.includes('play.google.com'))!;
    expect((await get(synthetic, o())).status).toBe(200);
    expect((await get('https://play.google.com/robots.txt', o())).status).toBe(200);
  });

  it('serves sellers.json for the fixtures\' ad system, naming the publishers\' DIRECT ids', async () => {
    const doc = JSON.parse((await get('https://adsystem-one.test/sellers.json', o())).body.toString()) as { sellers: Array<{ seller_id: string }> };
    const ids = doc.sellers.map((s) => s.seller_id);
    for (const id of ['pub-1001', 'pub-1002', 'pub-1003', 'pub-2001', 'pub-3001']) expect(ids).toContain(id);
  });

  it('reports requests to onRequest', () => {
    expect(seen.some((r) => r.host === 'adsystem-one.test' && r.path === '/sellers.json' && r.status === 200 && r.scheme === 'https')).toBe(true);
  });
});

describe('simweb fixture format', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'simweb-fx-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('serves files, routes with status / type / headers, redirects, hostile bodies, drops and HTTPS-only', async () => {
    await mkdir(path.join(dir, 'exact.test/sub'), { recursive: true });
    await writeFile(path.join(dir, 'exact.test/ads.txt'), 'a.com, 1, DIRECT\n');
    await writeFile(path.join(dir, 'exact.test/sub/data.json'), '{}');
    await writeFile(path.join(dir, 'exact.test/_routes.json'), JSON.stringify({
      transport: 'https_only',
      routes: {
        '/teapot': { status: 418, body: 'short and stout', contentType: null, headers: { 'x-test': 'yes' } },
        '/moved': { status: 308, location: '/ads.txt' },
        '/q?x=1': { status: 200, body: 'with query' },
        '/forever': { hostile: 'endless' },
        '/gone': { drop: true },
      },
    }));
    await writeFile(path.join(dir, 'README.md'), 'not a host');
    const w = await startSimweb({ hosts: 0, fixturesDir: dir });
    const o = { port: w.port, ca: w.caCertPem };
    try {
      expect(w.fixtureHosts()).toEqual(['exact.test']);
      expect((await get('https://exact.test/ads.txt', o)).body.toString()).toBe('a.com, 1, DIRECT\n');
      expect((await get('https://exact.test/sub/data.json', o)).headers['content-type']).toBe('application/json');
      const teapot = await get('https://exact.test/teapot', o);
      expect(teapot).toMatchObject({ status: 418 });
      expect(teapot.headers['x-test']).toBe('yes');
      expect(teapot.headers['content-type']).toBeUndefined();
      expect((await get('https://exact.test/moved', o)).headers.location).toBe('/ads.txt');
      expect((await get('https://exact.test/q?x=1', o)).body.toString()).toBe('with query');
      expect((await get('https://exact.test/q?x=2', o)).status).toBe(404);
      expect(await get('https://exact.test/forever', { ...o, maxBytes: 1 << 20 })).toMatchObject({ status: 200, error: 'max_bytes' });
      expect((await get('https://exact.test/gone', o)).status).toBeNull();
      expect((await get('http://exact.test/ads.txt', o)).status).toBeNull(); // https_only
    } finally {
      await w.close();
    }
  }, 30_000);

  it('rejects a malformed _routes.json with a message naming the host', async () => {
    const bad = await mkdtemp(path.join(os.tmpdir(), 'simweb-bad-'));
    try {
      await mkdir(path.join(bad, 'bad.test'));
      await writeFile(path.join(bad, 'bad.test/_routes.json'), JSON.stringify({ routes: { '/x': { hostile: 'nope' } } }));
      await expect(startSimweb({ fixturesDir: bad })).rejects.toThrow(/bad\.test route \/x: unknown hostile kind/);
    } finally {
      await rm(bad, { recursive: true, force: true });
    }
  });
});
