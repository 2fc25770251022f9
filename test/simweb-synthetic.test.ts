import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimweb, type Simweb } from '../src/simweb/index.js';
import { parseSyntheticHost, syntheticName } from '../src/simweb/names.js';
import { seedOf } from '../src/simweb/prng.js';
import { get, miniCrawl } from './simweb-client.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('simweb synthetic web', () => {
  let a: Simweb;
  let b: Simweb;
  const opts = (w: Simweb) => ({ port: w.port, ca: w.caCertPem });

  beforeAll(async () => {
    [a, b] = await Promise.all([startSimweb({ hosts: 400, seed: 'det' }), startSimweb({ hosts: 400, seed: 'det' })]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  it('names round-trip to their class and index, and foreign names are unknown', () => {
    const seed = seedOf('det');
    for (const cls of ['root', 'partner', 'developer', 'manager', 'adsystem'] as const) {
      for (const i of [0, 1, 35, 36, 99_999]) {
        const name = syntheticName(seed, cls, i);
        expect(parseSyntheticHost(seed, `www.${name}`)).toMatchObject({ cls, index: i, root: name, sub: 'www' });
      }
    }
    expect(parseSyntheticHost(seed, 'example.com')).toBeNull();
    expect(parseSyntheticHost(seedOf('other'), syntheticName(seed, 'root', 5))).toBeNull();
  });

  it('same seed gives the same list and the same bytes; another seed does not', async () => {
    const listA = [...a.domains()];
    expect(listA).toHaveLength(400);
    expect([...b.domains()]).toEqual(listA);
    expect(new Set(listA).size).toBe(400);
    const c = await startSimweb({ hosts: 400, seed: 'other' });
    try {
      expect([...c.domains()].filter((d, i) => d === listA[i]).length).toBeLessThan(5);
    } finally {
      await c.close();
    }
    const withFiles = listA.filter((d) => a.describe(d).expect['ads.txt']?.status === 'ok').slice(0, 15);
    expect(withFiles.length).toBe(15);
    for (const d of withFiles) {
      const [ra, rb] = [await miniCrawl(d, 'ads.txt', opts(a)), await miniCrawl(d, 'ads.txt', opts(b))];
      const [x, y] = [await get(ra.finalUrl!, opts(a)), await get(rb.finalUrl!, opts(b))];
      expect(x.status).toBe(200);
      expect(sha(x.body)).toBe(sha(y.body));
    }
  });

  it('describe() tells the truth: a spec-following crawl of every host records what it says (ads.txt 1.1 §3.1)', async () => {
    const seen = new Map<string, number>();
    for (const d of [...a.domains()].slice(0, 150)) {
      const spec = a.describe(d);
      if (spec.role === 'hostile') continue;
      const want = spec.expect['ads.txt']!;
      const got = await miniCrawl(d, 'ads.txt', opts(a));
      expect({ host: d, outcome: spec.adsOutcome, status: got.status, records: got.records }).toEqual({ host: d, outcome: spec.adsOutcome, status: want.status, records: want.records });
      seen.set(want.status, (seen.get(want.status) ?? 0) + 1);
    }
    // The calibrated mix shows up in a few hundred hosts.
    for (const s of ['ok', 'not_found', 'html']) expect(seen.get(s) ?? 0).toBeGreaterThan(5);
  });

  it('serves www ↔ apex and http → https redirects inside the root', async () => {
    const www = [...a.domains()].find((d) => a.describe(d).canonicalHost === `www.${d}` && a.describe(d).behaviour.transport === 'redirect_to_https')!;
    const apex = await get(`https://${www}/ads.txt`, opts(a));
    expect(apex.status).toBe(301);
    expect(apex.headers.location).toBe(`https://www.${www}/ads.txt`);
    const plain = await get(`http://www.${www}/ads.txt`, opts(a));
    expect(plain.status).toBe(301);
    expect(plain.headers.location).toBe(`https://www.${www}/ads.txt`);
  });

  it('with plainHttp answers over http:// what it answers over https://, its redirects staying on http://', async () => {
    const p = await startSimweb({ hosts: 400, seed: 'det', plainHttp: true });
    try {
      const all = [...p.domains()].map((d) => a.describe(d));
      const www = all.find((s) => s.canonicalHost === `www.${s.host}` && s.behaviour.transport === 'redirect_to_https' && s.expect['ads.txt']?.status === 'ok')!;
      const apex = await get(`http://${www.host}/ads.txt`, opts(p));
      expect(apex.status).toBe(301);
      expect(apex.headers.location).toBe(`http://www.${www.host}/ads.txt`);
      const [overHttp, overHttps] = [await get(`http://www.${www.host}/ads.txt`, opts(p)), await get(`https://www.${www.host}/ads.txt`, opts(a))];
      expect(overHttp.status).toBe(200);
      expect(sha(overHttp.body)).toBe(sha(overHttps.body));
      const httpsOnly = all.find((s) => s.role === 'root' && s.behaviour.transport === 'https_only')!;
      expect((await get(`http://${httpsOnly.canonicalHost}/robots.txt`, opts(p))).error).toBeNull();
      expect((await get(`http://${httpsOnly.canonicalHost}/robots.txt`, opts(a))).error).not.toBeNull();
    } finally {
      await p.close();
    }
  });

  it('declares subdomain= and inventorypartnerdomain= referrals and serves their targets', async () => {
    const all = [...a.domains()].map((d) => a.describe(d));
    const withSub = all.find((s) => s.subdomains.length > 0)!;
    expect(withSub).toBeDefined();
    const sub = a.describe(withSub.subdomains[0]!);
    expect(sub.role).toBe('subdomain');
    expect((await miniCrawl(withSub.subdomains[0]!, 'ads.txt', opts(a))).status).toBe(sub.expect['ads.txt']!.status);
    const withPartner = all.find((s) => s.partners.length > 0)!;
    const partner = a.describe(withPartner.partners[0]!);
    expect(partner.role).toBe('partner');
    expect(partner.partners).toHaveLength(1); // names another partner, which must not be followed
    const got = await miniCrawl(partner.host, 'ads.txt', opts(a));
    expect(got).toMatchObject({ status: 'ok', records: partner.expect['ads.txt']!.records });
    const file = await get(got.finalUrl!, opts(a));
    expect(file.body.toString()).toContain(`inventorypartnerdomain=${partner.partners[0]}`);
  });

  it('sellers.json lists the DIRECT seller ids that publishers\' files use', async () => {
    const d = [...a.domains()].find((x) => a.describe(x).expect['ads.txt']?.status === 'ok' && a.describe(x).adsOutcome === 'ok')!;
    const file = await get((await miniCrawl(d, 'ads.txt', opts(a))).finalUrl!, opts(a));
    const first = file.body.toString().split('\n').find((l) => /,\s*DIRECT/.test(l) && !l.includes('='))!;
    const [system, id] = first.split(',').map((s) => s.trim());
    const sellers = await get(`https://${system!.toLowerCase()}/sellers.json`, opts(a));
    expect(sellers.status).toBe(200);
    const doc = JSON.parse(sellers.body.toString()) as { sellers: Array<{ seller_id: string; domain?: string }> };
    expect(doc.sellers.find((s) => s.seller_id === id)).toBeDefined();
    expect(doc.sellers.some((s) => s.domain === d || s.seller_id === id)).toBe(true);
  });

  it('serves store pages with the app-ads.txt 1.0 meta tags, and developer sites', async () => {
    const urls = [...a.apps()];
    expect(urls.length).toBe(40);
    let withDev = 0;
    for (const url of urls.slice(0, 20)) {
      const page = await get(url, opts(a));
      expect(page.status).toBe(200);
      const html = page.body.toString();
      const dev = /<meta name="appstore:developer_url" content="([^"]*)">/.exec(html)![1]!;
      expect(html).toMatch(/<meta name="appstore:bundle_id" content="com\.[a-z]+\.[a-z]+\d+">/);
      if (!dev) continue;
      withDev++;
      const host = new URL(dev).hostname;
      const root = a.describe(host).root!;
      expect(a.describe(root).role).toBe('developer');
      const want = a.describe(root).expect['app-ads.txt']!;
      expect((await miniCrawl(root, 'app-ads.txt', opts(a))).status).toBe(want.status);
    }
    expect(withDev).toBeGreaterThan(10);
    expect((await get('https://play.google.com/store/apps/details?id=com.nobody.here1', opts(a))).status).toBe(404);
    expect((await get('https://play.google.com/robots.txt', opts(a))).body.toString()).toContain('Allow: /store/apps/details');
  });

  it('answers a conditional request with 304 (ETag)', async () => {
    const d = [...a.domains()].find((x) => a.describe(x).adsOutcome === 'ok')!;
    const url = (await miniCrawl(d, 'ads.txt', opts(a))).finalUrl!;
    const first = await get(url, opts(a));
    expect(first.headers.etag).toBeTruthy();
    const again = await get(url, { ...opts(a), headers: { 'if-none-match': String(first.headers.etag) } });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it('issues certificates that chain to the CA for the apex, www and deeper hosts', async () => {
    const d = [...a.domains()].find((x) => a.describe(x).behaviour.tls === 'ok')!;
    for (const h of [d, `www.${d}`, `a.b.${d}`]) {
      const r = await get(`https://${h}/robots.txt`, opts(a));
      expect(r.error).toBeNull();
      expect(r.status).not.toBeNull();
    }
    const untrusted = await get(`https://${d}/robots.txt`, { port: a.port, ca: '' });
    expect(untrusted.error).toMatch(/SELF_SIGNED|UNABLE_TO|CERT/);
    expect(a.stats().tlsHandshakes).toBeGreaterThan(0);
  });

  it('injects per-host latency when asked', async () => {
    const slow = await startSimweb({ hosts: 10, latency: { minMs: 80, maxMs: 80 } });
    try {
      const d = [...slow.domains()][0]!;
      expect(slow.describe(d).behaviour.latencyMs).toBe(80);
      const t0 = performance.now();
      await get(`http://${d}/robots.txt`, opts(slow));
      expect(performance.now() - t0).toBeGreaterThanOrEqual(55); // 80 ms − 25 % jitter
    } finally {
      await slow.close();
    }
  });
});
