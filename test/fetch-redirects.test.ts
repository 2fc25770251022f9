import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Fetcher, resolveFetchConfig, type FetchKind } from '../src/fetch/index.js';
import { noDns, readText, startLocalWeb, type LocalWeb } from './helpers/local-server.js';
import { createTestTls, type TestTls } from './helpers/tls.js';

let tls: TestTls;
let web: LocalWeb;
let fetcher: Fetcher;

beforeAll(async () => {
  tls = await createTestTls();
  web = await startLocalWeb(tls);
  fetcher = new Fetcher(resolveFetchConfig({ connectTo: web.connectTo, caCerts: [tls.caPem], resolver: noDns, retries: 0 }));
});
afterAll(async () => {
  await fetcher.close();
  await web.close();
});

const get = (url: string, kind: FetchKind = 'ads.txt') => fetcher.fetch({ url, kind, subject: new URL(url).hostname }, readText);

describe('ads.txt 1.1 §3.1 redirects', () => {
  it('follows any number of redirects inside the original root domain', async () => {
    web.redirect('https://in.example/ads.txt', 'https://www.in.example/ads.txt');
    web.redirect('https://www.in.example/ads.txt', 'http://cdn.www.in.example/ads.txt', 302);
    web.redirect('http://cdn.www.in.example/ads.txt', 'https://in.example/files/ads.txt', 307);
    web.reply('https://in.example/files/ads.txt', 200, 'a.com, 1, DIRECT\n');
    const o = await get('https://in.example/ads.txt');
    expect(o.error).toBeNull();
    expect(o.status).toBe(200);
    expect(o.body).toBe('a.com, 1, DIRECT\n');
    expect(o.finalUrl).toBe('https://in.example/files/ads.txt');
    expect(o.rows).toHaveLength(1);
    expect(o.rows[0]!.redirects).toEqual(['https://www.in.example/ads.txt', 'http://cdn.www.in.example/ads.txt', 'https://in.example/files/ads.txt']);
    expect(o.rows[0]!.final_url).toBe('https://in.example/files/ads.txt');
  });

  it('follows exactly one redirect out of the root domain (one-hop delegation)', async () => {
    web.redirect('https://pub.example/ads.txt', 'https://www.pub.example/ads.txt');
    web.redirect('https://www.pub.example/ads.txt', 'https://manager.example.net/pub/ads.txt', 302);
    web.reply('https://manager.example.net/pub/ads.txt', 200, 'b.com, 2, RESELLER\n');
    const o = await get('https://pub.example/ads.txt');
    expect(o.error).toBeNull();
    expect(o.status).toBe(200);
    expect(o.body).toContain('b.com');
    expect(o.rows[0]!.redirects).toHaveLength(2);
  });

  it('treats a further redirect at the third-party location as redirect_scope, even inside its own root', async () => {
    web.redirect('https://two.example/ads.txt', 'https://host.example.net/ads.txt');
    web.redirect('https://host.example.net/ads.txt', 'https://www.host.example.net/ads.txt');
    web.reply('https://www.host.example.net/ads.txt', 200, 'c.com, 3, DIRECT\n');
    const o = await get('https://two.example/ads.txt');
    expect(o.error).toBe('redirect_scope');
    expect(o.status).toBe(301);
    expect(o.body).toBeNull();
    expect(o.finalUrl).toBe('https://host.example.net/ads.txt');
    expect(web.seen.some((s) => s.url === 'https://www.host.example.net/ads.txt')).toBe(false);
  });

  it('treats a second hop out (and a hop back home) as redirect_scope', async () => {
    web.redirect('https://three.example/ads.txt', 'https://first.example.org/ads.txt');
    web.redirect('https://first.example.org/ads.txt', 'https://three.example/real-ads.txt');
    const o = await get('https://three.example/ads.txt');
    expect(o.error).toBe('redirect_scope');
  });

  it('detects a loop (redirect_loop)', async () => {
    web.redirect('https://loop.example/ads.txt', 'https://loop.example/a');
    web.redirect('https://loop.example/a', 'https://www.loop.example/b');
    web.redirect('https://www.loop.example/b', 'https://loop.example/ads.txt');
    const o = await get('https://loop.example/ads.txt');
    expect(o.error).toBe('redirect_loop');
    expect(o.rows[0]!.redirects).toEqual(['https://loop.example/a', 'https://www.loop.example/b']);
  });

  it('allows 10 hops and refuses the 11th (redirect_limit)', async () => {
    for (let i = 0; i < 11; i++) web.redirect(`https://long.example/${i}`, `https://long.example/${i + 1}`);
    web.reply('https://long.example/10', 200, 'ok\n');
    web.reply('https://long.example/11', 200, 'ok\n');
    const ten = await get('https://long.example/0');
    expect(ten.error).toBeNull();
    expect(ten.rows[0]!.redirects).toHaveLength(10);
    web.redirect('https://long.example/10', 'https://long.example/11');
    const eleven = await get('https://long.example/0');
    expect(eleven.error).toBe('redirect_limit');
    expect(eleven.status).toBe(301);
  });

  it('follows 303 and 308, but not 300; a redirect without Location is redirect_invalid', async () => {
    web.redirect('https://codes.example/ads.txt', 'https://codes.example/b', 303);
    web.redirect('https://codes.example/b', 'https://codes.example/c', 308);
    web.reply('https://codes.example/c', 200, 'x\n');
    expect((await get('https://codes.example/ads.txt')).status).toBe(200);
    web.redirect('https://multi.example/ads.txt', 'https://multi.example/b', 300);
    const m = await get('https://multi.example/ads.txt');
    expect([m.status, m.error]).toEqual([300, null]);
    web.route('https://noloc.example/ads.txt', (_q, res) => void res.writeHead(302).end());
    expect((await get('https://noloc.example/ads.txt')).error).toBe('redirect_invalid');
  });

  it('applies the same rule to app-ads.txt', async () => {
    web.redirect('https://dev.example/app-ads.txt', 'https://a.example.org/app-ads.txt');
    web.redirect('https://a.example.org/app-ads.txt', 'https://b.example.org/app-ads.txt');
    expect((await get('https://dev.example/app-ads.txt', 'app-ads.txt')).error).toBe('redirect_scope');
  });
});

describe('RFC 9309 §2.3.1.2 robots.txt redirects', () => {
  it('follows five redirects across hosts, and calls a sixth redirect_limit', async () => {
    const hosts = ['r0.example', 'r1.example.net', 'r2.example.org', 'r3.example', 'r4.example.net', 'r5.example.org', 'r6.example'];
    for (let i = 0; i < 5; i++) web.redirect(`https://${hosts[i]}/robots.txt`, `https://${hosts[i + 1]}/robots.txt`);
    web.reply('https://r5.example.org/robots.txt', 200, 'User-agent: *\nDisallow: /x\n');
    const five = await get('https://r0.example/robots.txt', 'robots.txt');
    expect(five.error).toBeNull();
    expect(five.body).toContain('Disallow: /x');
    expect(five.rows[0]!.redirects).toHaveLength(5);
    web.redirect('https://r5.example.org/robots.txt', 'https://r6.example/robots.txt');
    const six = await get('https://r0.example/robots.txt', 'robots.txt');
    expect(six.error).toBe('redirect_limit');
  });
});

describe('sellers.json and store pages', () => {
  it('follow ordinary redirects across hosts, bounded at 10', async () => {
    web.redirect('https://ssp.example/sellers.json', 'https://cdn.example.net/sellers.json');
    web.redirect('https://cdn.example.net/sellers.json', 'https://cdn2.example.org/s.json');
    web.reply('https://cdn2.example.org/s.json', 200, '{"sellers":[]}', { 'content-type': 'application/json' });
    const o = await get('https://ssp.example/sellers.json', 'sellers.json');
    expect([o.status, o.error, o.contentType]).toEqual([200, null, 'application/json']);
    for (let i = 0; i < 11; i++) web.redirect(`https://store.example/${i}`, `https://store${i + 1}.example/${i + 1}`);
    for (let i = 1; i <= 11; i++) web.redirect(`https://store${i}.example/${i}`, `https://store.example/${i}`);
    expect((await get('https://store.example/0', 'store_page')).error).toBe('redirect_limit');
  });
});
