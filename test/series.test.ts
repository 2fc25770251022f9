import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../pipelines/crawl.js';
import { openSnapshotDb } from '../src/sql/snapshot-db.js';
import { startLocalWeb, type LocalWeb } from './helpers/local-server.js';
import { createTestTls } from './helpers/tls.js';
import { useTempDirs } from './helpers/tmp.js';

/**
 * The snapshot series: three nights (the first, +24 h, +8 days) of a small web whose files change
 * between nights in known ways, crawled with the defaults. Every view's answer on every night is
 * checked against what the web served that night.
 */
const tempDir = useTempDirs('series');
const T0 = Date.parse('2026-11-20T02:00:00Z');
const DAY = 86_400_000;
const NIGHTS = [
  { date: '2026-11-20', now: new Date(T0) },
  { date: '2026-11-21', now: new Date(T0 + DAY) },
  { date: '2026-11-28', now: new Date(T0 + 8 * DAY) },
] as const;
const APP = 'https://play.google.com/store/apps/details?id=com.example.game';
const TEXT = { 'content-type': 'text/plain' };

type Night = 0 | 1 | 2;
type Served = { status: number; body?: string; headers?: Record<string, string> } | 'reset';
/** What each URL serves on each night (index = night); a missing night repeats the previous one. */
const SITE: Record<string, Served[]> = {
  // a.test: a record added on night 2, one removed on night 3; a duplicate line throughout.
  'https://a.test/ads.txt': [
    txt('adx.test, 1, DIRECT\nssp.test, 10, RESELLER\nadx.test, 1, DIRECT\n'),
    txt('adx.test, 1, DIRECT\nssp.test, 10, RESELLER\nadx.test, 2, DIRECT\nadx.test, 1, DIRECT\n'),
    txt('adx.test, 1, DIRECT\nadx.test, 2, DIRECT\nadx.test, 1, DIRECT\n'),
  ],
  // b.test loses its file on night 2; c.test gains one.
  'https://b.test/ads.txt': [txt('adx.test, 3, RESELLER\n'), { status: 404 }],
  'https://c.test/ads.txt': [{ status: 404 }, txt('ssp.test, 11, DIRECT\n')],
  // d.test: robots.txt tightens on night 2; its ads.txt declares a subdomain and a partner.
  'https://d.test/robots.txt': [txt('User-agent: *\nDisallow: /private\n'), txt('User-agent: *\nDisallow: /\n')],
  'https://d.test/ads.txt': [txt('adx.test, 5, DIRECT\nsubdomain=sub.d.test\ninventorypartnerdomain=partner.test\n')],
  'https://sub.d.test/ads.txt': [txt('ssp.test, 12, DIRECT\n')],
  'https://partner.test/ads.txt': [txt('adx.test, 7, RESELLER\n')],
  // e.test names a seller id that adx.test's sellers.json never lists, and one that ssp.test lists
  // in another case (AB-13): found as the studies match, not byte for byte.
  'https://e.test/ads.txt': [txt('adx.test, 99, DIRECT\nssp.test, ab-13, DIRECT\n')],
  // f.test serves its file as HTML content type: invalid, its record kept but not for buyers.
  'https://f.test/ads.txt': [{ status: 200, body: 'adx.test, 98, DIRECT\n', headers: { 'content-type': 'text/html' } }],
  // html.test: a soft 404 page, for its ads.txt and its robots.txt.
  'https://html.test/ads.txt': [{ status: 200, body: '<!doctype html><html><body>Not found</body></html>\n', headers: { 'content-type': 'text/html' } }],
  'https://html.test/robots.txt': [{ status: 200, body: '<!doctype html><html><body>Not found</body></html>\n', headers: { 'content-type': 'text/html' } }],
  // placeholder.test authorizes nobody; its ad system has no sellers.json to fetch.
  'https://placeholder.test/ads.txt': [txt('placeholder.example.com, placeholder, DIRECT, placeholder\n')],
  // big.test grows past the cap (4 KiB here) on night 2 (the earlier copy is carried forward)
  // and is still too large on night 3, when that copy is over 7 days old.
  'https://big.test/ads.txt': [txt('adx.test, 1, DIRECT\n'), txt(junk(300)), txt(junk(300))],
  // down.test resets every connection on night 2 only.
  'https://down.test/ads.txt': [txt('ssp.test, 10, DIRECT\n'), 'reset', txt('ssp.test, 10, DIRECT\n')],
  // The app's developer host: its app-ads.txt names a partner (app → developer host → partner).
  'https://dev.test/app-ads.txt': [txt('ssp.test, 11, RESELLER\ninventorypartnerdomain=partner.test\n')],
  // sellers.json: adx.test adds 4 and drops 3 on night 2; renames 1 and retypes 2 on night 3.
  'https://adx.test/sellers.json': [
    sellers([[1, 'PUBLISHER', 'One'], [2, 'PUBLISHER', 'Two'], [3, 'INTERMEDIARY', 'Three'], [5, 'PUBLISHER', 'Five'], [7, 'INTERMEDIARY', 'Seven']]),
    sellers([[1, 'PUBLISHER', 'One'], [2, 'PUBLISHER', 'Two'], [4, 'PUBLISHER', 'Four'], [5, 'PUBLISHER', 'Five'], [7, 'INTERMEDIARY', 'Seven']]),
    sellers([[1, 'PUBLISHER', 'One Inc'], [2, 'BOTH', 'Two'], [4, 'PUBLISHER', 'Four'], [5, 'PUBLISHER', 'Five'], [7, 'INTERMEDIARY', 'Seven']]),
  ],
  'https://ssp.test/sellers.json': [sellers([[10, 'INTERMEDIARY', 'Ten'], [11, 'BOTH', 'Eleven'], [12, 'PUBLISHER', 'Twelve'], ['AB-13', 'PUBLISHER', 'Thirteen']])],
  // Intermediaries: adx.test's seller 7 (INTERMEDIARY, domain s7.test) publishes its own
  // file, which resets on night 2 (carried forward) and adds a seller on night 3; seller 3 (night 1
  // only) names s3.test, which has none; ssp.test's 10 and 11 name s10.test and s11.test (none).
  'https://s7.test/sellers.json': [
    sellers([[70, 'PUBLISHER', 'Seventy']]),
    'reset',
    sellers([[70, 'PUBLISHER', 'Seventy'], [71, 'PUBLISHER', 'Seventy-one']]),
  ],
  // What the crawl could not see is not what the site said: wall.test's robots.txt is a bot wall
  // (Cloudflare's challenge header on a 403), err.test's answers 503; both have no ads.txt.
  'https://wall.test/robots.txt': [{ status: 403, body: '<!doctype html><html><body>Just a moment...</body></html>\n', headers: { 'content-type': 'text/html', 'cf-mitigated': 'challenge' } }],
  'https://err.test/robots.txt': [{ status: 503, body: 'busy\n' }],
  'https://wall.test/ads.txt': [{ status: 404 }],
  'https://err.test/ads.txt': [{ status: 404 }],
  // g.test, h.test and i.test name cut.test and an alias pair. cut.test's sellers.json is served
  // cut (not JSON) on night 2 only, and adds a seller on night 3. alias-one.test and
  // alias-two.test: the same certification-authority id in every file, and alias-two.test's
  // sellers.json redirects to alias-one.test's (the same body, the same URL).
  'https://g.test/ads.txt': [txt('cut.test, c1, DIRECT\nalias-one.test, 1, DIRECT, cafe0001\nalias-two.test, 1, DIRECT, cafe0001\n')],
  'https://h.test/ads.txt': [txt('alias-one.test, 2, DIRECT, cafe0001\nalias-two.test, 2, DIRECT, cafe0001\nadx.test, 1, DIRECT, other99\n')],
  'https://i.test/ads.txt': [txt('alias-one.test, 3, RESELLER, cafe0001\nalias-two.test, 3, RESELLER, cafe0001\n')],
  'https://cut.test/sellers.json': [
    sellers([['c1', 'PUBLISHER', 'Cee One'], ['c2', 'PUBLISHER', 'Cee Two']]),
    cut(sellers([['c1', 'PUBLISHER', 'Cee One'], ['c2', 'PUBLISHER', 'Cee Two']])),
    sellers([['c1', 'PUBLISHER', 'Cee One'], ['c2', 'PUBLISHER', 'Cee Two'], ['c3', 'PUBLISHER', 'Cee Three']]),
  ],
  'https://alias-one.test/sellers.json': [sellers([[1, 'PUBLISHER', 'One'], [2, 'PUBLISHER', 'Two'], [3, 'PUBLISHER', 'Three']])],
  'https://alias-two.test/sellers.json': [{ status: 301, headers: { location: 'https://alias-one.test/sellers.json' } }],
  // OWNERDOMAIN against the seller's domain (k.test): k.test itself and shop.k.test (no
  // OWNERDOMAIN: the subject, or a domain it is a subdomain of, matches) are consistent;
  // news.k.test declares OWNERDOMAIN=elsewhere.test, which disagrees, subdomain or not.
  'https://k.test/ads.txt': [txt('own-ssp.test, k1, DIRECT\nsubdomain=news.k.test\nsubdomain=shop.k.test\n')],
  'https://news.k.test/ads.txt': [txt('OWNERDOMAIN=elsewhere.test\nown-ssp.test, k1, DIRECT\n')],
  'https://shop.k.test/ads.txt': [txt('own-ssp.test, k1, DIRECT\n')],
  'https://own-ssp.test/sellers.json': [{ status: 200, body: JSON.stringify({ version: '1.0', sellers: [{ seller_id: 'k1', seller_type: 'PUBLISHER', name: 'K', domain: 'k.test' }] }), headers: { 'content-type': 'application/json' } }],
};
const LISTED = ['a.test', 'b.test', 'c.test', 'd.test', 'e.test', 'f.test', 'html.test', 'placeholder.test', 'big.test', 'down.test', 'wall.test', 'err.test', 'g.test', 'h.test', 'i.test', 'k.test'];

function txt(body: string): Served {
  return { status: 200, body, headers: TEXT };
}
function junk(n: number): string {
  return Array.from({ length: n }, (_, i) => `junk.test, j-${i}, RESELLER\n`).join('');
}
/** A body cut in the middle: not JSON. */
function cut(s: Served): Served {
  if (s === 'reset') return s;
  return { ...s, body: s.body!.slice(0, Math.floor(s.body!.length / 2)) };
}
function sellers(entries: [number | string, string, string][]): Served {
  const list = entries.map(([id, type, name]) => ({ seller_id: String(id), seller_type: type, name, domain: `s${id}.test` }));
  return { status: 200, body: JSON.stringify({ version: '1.0', sellers: list }), headers: { 'content-type': 'application/json' } };
}

let web: LocalWeb;
let caPem: string;
let out: string;
let night: Night = 0;
let db: Awaited<ReturnType<typeof openSnapshotDb>>;

beforeAll(async () => {
  const tls = await createTestTls();
  caPem = tls.caPem;
  web = await startLocalWeb(tls);
  const hosts = new Set(Object.keys(SITE).map((u) => new URL(u).host));
  for (const h of [...hosts, ...LISTED]) if (!SITE[`https://${h}/robots.txt`]) SITE[`https://${h}/robots.txt`] = [txt('User-agent: *\nAllow: /\n')];
  for (const [url, nights] of Object.entries(SITE)) {
    const serve = (_req: unknown, res: import('node:http').ServerResponse) => {
      const s = nights[Math.min(night, nights.length - 1)]!;
      if (s === 'reset') return void res.socket?.destroy();
      res.writeHead(s.status, s.headers ?? TEXT).end(s.body ?? '');
    };
    // The same answer over HTTP (the fetch falls back to it when HTTPS fails, ads.txt 1.1 §3.1).
    web.route(url, serve);
    web.route(url.replace('https://', 'http://'), serve);
  }
  const dir = tempDir();
  out = path.join(dir, 'out');
  const domains = path.join(dir, 'domains.txt');
  writeFileSync(domains, LISTED.join('\n') + '\n');
  const apps = path.join(dir, 'apps.csv');
  writeFileSync(apps, `store_url,developer_url\n${APP},https://dev.test/\n`);
  for (const [i, n] of NIGHTS.entries()) {
    night = i as Night;
    await crawl({
      domains,
      apps,
      outDir: out,
      snapshotDate: n.date,
      now: n.now,
      checkpointSeconds: 0,
      fetch: { connectTo: web.connectTo, caCerts: [caPem], retries: 0, maxBytes: { 'ads.txt': 4096 }, totalTimeoutMs: { 'ads.txt': 3000 } },
    });
  }
  db = await openSnapshotDb(out);
}, 120_000);

afterAll(async () => {
  db?.close();
  await web?.close();
});

const q = (sql: string) => db.rows(sql);
const d = (i: number) => `DATE '${NIGHTS[i]!.date}'`;

describe('files: what the content was, and how it was obtained, on every night', () => {
  it('ads.txt status and provenance per site and night', async () => {
    const rows = await q(`SELECT strftime(snapshot_date, '%m-%d') AS night, subject, status, obtained, valid FROM files WHERE file_kind = 'ads.txt' AND subject IN ('a.test','b.test','c.test','f.test','html.test','placeholder.test','big.test','down.test') ORDER BY subject, night`);
    const by = (s: string) => rows.filter((r) => r.subject === s).map((r) => `${r.status}/${r.obtained}/${r.valid}`);
    expect(by('a.test')).toEqual(['ok/fetched/true', 'ok/fetched/true', 'ok/fetched/true']);
    expect(by('b.test')).toEqual(['ok/fetched/true', 'not_found/fetched/false', 'not_found/fetched/false']);
    expect(by('c.test')).toEqual(['not_found/fetched/false', 'ok/fetched/true', 'ok/fetched/true']);
    expect(by('f.test')).toEqual(Array(3).fill('invalid_content_type/fetched/false'));
    expect(by('html.test')).toEqual(Array(3).fill('html/fetched/false'));
    expect(by('placeholder.test')).toEqual(Array(3).fill('placeholder/fetched/true'));
    expect(by('big.test')).toEqual(['ok/fetched/true', 'ok/carried_forward/true', 'too_large/fetched/false']);
    expect(by('down.test')).toEqual(['ok/fetched/true', 'ok/carried_forward/true', 'ok/fetched/true']);
  });

  it('bytes and sha256 are on every row with a body; the run clock is the same for fetches and files', async () => {
    expect(await q(`SELECT subject, file_kind, snapshot_date FROM files WHERE url IS NOT NULL AND (bytes IS NULL OR sha256 IS NULL)`)).toEqual([]);
    const skew = await q(`
      SELECT max(abs(epoch(f.fetched_at) - epoch(x.started_at))) AS s FROM files f
      JOIN fetches x ON x.snapshot_date = f.snapshot_date AND x.subject = f.subject AND x.file_kind = f.file_kind
      WHERE f.obtained = 'fetched'`);
    expect(Number(skew[0]!.s)).toBeLessThan(60);
  });

  it('robots.txt: content status every night (a tightened file, an HTML page)', async () => {
    const rows = await q(`SELECT subject, list(status ORDER BY snapshot_date) AS s, list(records ORDER BY snapshot_date) AS rules FROM files WHERE file_kind = 'robots.txt' AND subject IN ('d.test', 'html.test', 'a.test') GROUP BY 1 ORDER BY 1`);
    expect(rows).toEqual([
      { subject: 'a.test', s: ['ok', 'ok', 'ok'], rules: [1, 1, 1] },
      { subject: 'd.test', s: ['ok', 'ok', 'ok'], rules: [1, 1, 1] },
      { subject: 'html.test', s: ['html', 'html', 'html'], rules: [0, 0, 0] },
    ]);
    const verdicts = await q(`SELECT strftime(snapshot_date, '%m-%d') AS n, allowed FROM robots_verdicts WHERE host = 'd.test' AND user_agent = 'Googlebot' AND path = '/' ORDER BY n`);
    expect(verdicts.map((v) => v.allowed)).toEqual([true, false, false]);
  });

  it('AI crawlers: d.test blocks every agent through * from night 2; the shares follow', async () => {
    const d = await q(`SELECT strftime(snapshot_date, '%m-%d') AS n, blocked, via FROM agent_access WHERE host = 'd.test' AND user_agent = 'GPTBot' ORDER BY n`);
    expect(d.map((r) => `${r.n} ${r.blocked} ${r.via}`)).toEqual(['11-20 partial global_group', '11-21 full global_group', '11-28 full global_group']);
    const shares = await q(`SELECT strftime(snapshot_date, '%m-%d') AS n, sites, share_full, share_full_through_star, share_partial, share_unknown FROM ai_crawler_blocking WHERE user_agent = 'GPTBot' ORDER BY n`);
    // 16 listed sites; wall.test and err.test are unknown every night.
    expect(shares).toEqual([
      { n: '11-20', sites: 16, share_full: 0, share_full_through_star: 0, share_partial: 1 / 16, share_unknown: 2 / 16 },
      { n: '11-21', sites: 16, share_full: 1 / 16, share_full_through_star: 1 / 16, share_partial: 0, share_unknown: 2 / 16 },
      { n: '11-28', sites: 16, share_full: 1 / 16, share_full_through_star: 1 / 16, share_partial: 0, share_unknown: 2 / 16 },
    ]);
  });

  it('AI crawlers: a walled robots.txt and a 503 are unknown, not none and not full; the crawler’s own policy is unchanged', async () => {
    const files = await q(`SELECT subject, list(status || '/' || http_status ORDER BY snapshot_date) AS s FROM files WHERE file_kind = 'robots.txt' AND subject IN ('wall.test', 'err.test') GROUP BY 1 ORDER BY 1`);
    expect(files).toEqual([
      { subject: 'err.test', s: Array(3).fill('http_error/503') },
      { subject: 'wall.test', s: Array(3).fill('blocked/403') },
    ]);
    // robots_agent_access keeps what RFC 9309 §2.3.1 tells a crawler: 503 disallow all, 403 allow all.
    const rfc = await q(`SELECT host, list(DISTINCT blocked || ' ' || via) AS r FROM robots_agent_access WHERE host IN ('wall.test', 'err.test') GROUP BY 1 ORDER BY 1`);
    expect(rfc).toEqual([
      { host: 'err.test', r: ['full unreachable'] },
      { host: 'wall.test', r: ['none absent'] },
    ]);
    // The views: unknown, for every agent on every night.
    const seen = await q(`SELECT host, list(DISTINCT blocked) AS b, count(*) AS n FROM agent_access WHERE host IN ('wall.test', 'err.test') GROUP BY 1 ORDER BY 1`);
    const agents = await q(`SELECT count(*) AS n FROM agents_catalogue`);
    expect(seen).toEqual([
      { host: 'err.test', b: ['unknown'], n: agents[0]!.n },
      { host: 'wall.test', b: ['unknown'], n: agents[0]!.n },
    ]);
    // Independently: per night and agent, the four levels add up to the night's sites, and the
    // unknown share is the listed sites whose robots.txt a wall, a 429, a 5xx or no answer hid.
    const sums = await q(`SELECT DISTINCT round(share_full + share_partial + share_none + share_unknown, 12) AS total FROM ai_crawler_blocking`);
    expect(sums).toEqual([{ total: 1 }]);
    const unknown = await q(`
      SELECT strftime(f.snapshot_date, '%m-%d') AS n, count(*) / any_value(t.sites) AS share
      FROM files f JOIN (SELECT snapshot_date, count(*) AS sites FROM files WHERE file_kind = 'robots.txt' AND via = 'root' GROUP BY 1) t USING (snapshot_date)
      WHERE f.file_kind = 'robots.txt' AND f.via = 'root' AND (f.status IN ('blocked', 'rate_limited', 'unreachable') OR (f.status = 'http_error' AND f.http_status >= 500))
      GROUP BY 1 ORDER BY 1`);
    const view = await q(`SELECT DISTINCT strftime(snapshot_date, '%m-%d') AS n, share_unknown AS share FROM ai_crawler_blocking ORDER BY 1`);
    expect(view).toEqual(unknown);
    const purposes = await q(`SELECT DISTINCT share_unknown FROM ai_crawler_blocking_by_purpose UNION SELECT DISTINCT share_unknown FROM ai_crawler_blocking_by_operator`);
    expect(purposes).toEqual([{ share_unknown: 2 / 16 }]);
  });

  it('the placeholder ad system has no sellers.json request on any night', async () => {
    expect(await q(`SELECT count(*) AS n FROM fetches WHERE host = 'placeholder.example.com'`)).toEqual([{ n: 0 }]);
  });
});

describe('views on every night', () => {
  it('adoption', async () => {
    const rows = await q(`SELECT strftime(snapshot_date, '%m-%d') AS n, count(*) AS sites, count(*) FILTER (WHERE has_robots_txt) AS robots, count(*) FILTER (WHERE ads_txt_status = 'ok') AS ok, count(*) FILTER (WHERE ads_txt_valid) AS valid FROM adoption GROUP BY 1 ORDER BY 1`);
    // robots.txt: every site but html.test, wall.test and err.test. ok: a, b (night 1), c (nights
    // 2–3), d, e, big (nights 1–2), down, g, h, i, k.
    expect(rows).toEqual([
      { n: '11-20', sites: 16, robots: 13, ok: 10, valid: 11 },
      { n: '11-21', sites: 16, robots: 13, ok: 10, valid: 11 },
      { n: '11-28', sites: 16, robots: 13, ok: 9, valid: 10 },
    ]);
  });

  it('seller_match: missing seller ids on every night, from valid files only (seller_match_all keeps the rest)', async () => {
    const missing = await q(`SELECT strftime(snapshot_date, '%m-%d') AS n, list(subject || ':' || seller_account_id ORDER BY subject, seller_account_id) AS m FROM seller_match WHERE seller_missing GROUP BY 1 ORDER BY 1`);
    expect(missing).toEqual([
      { n: '11-20', m: ['e.test:99'] },
      { n: '11-21', m: ['e.test:99'] },
      { n: '11-28', m: ['e.test:99'] },
    ]);
    const all = await q(`SELECT count(*) AS n FROM seller_match_all WHERE subject = 'f.test' AND NOT file_valid AND seller_missing`);
    expect(all).toEqual([{ n: 3 }]);
    expect(await q(`SELECT count(*) AS n FROM seller_match WHERE subject = 'f.test'`)).toEqual([{ n: 0 }]);
  });

  it('authorized_sellers: one row per distinct record and subject, listed flag, the app → developer host → partner chain', async () => {
    const a = await q(`SELECT count(*) AS n, count(DISTINCT (ad_system_domain, seller_account_id, relationship)) AS distinct_records FROM authorized_sellers WHERE subject = 'a.test' AND snapshot_date = ${d(0)}`);
    expect(a).toEqual([{ n: 2, distinct_records: 2 }]);
    const subjects = await q(`SELECT subject, listed FROM authorized_sellers WHERE snapshot_date = ${d(0)} GROUP BY ALL ORDER BY subject`);
    expect(subjects).toEqual([
      { subject: 'a.test', listed: true },
      { subject: 'b.test', listed: true },
      { subject: 'big.test', listed: true },
      { subject: 'd.test', listed: true },
      { subject: 'dev.test', listed: false },
      { subject: 'down.test', listed: true },
      { subject: 'e.test', listed: true },
      { subject: 'f.test', listed: true },
      { subject: 'g.test', listed: true },
      { subject: 'h.test', listed: true },
      { subject: APP, listed: true },
      { subject: 'i.test', listed: true },
      { subject: 'k.test', listed: true },
      { subject: 'news.k.test', listed: false },
      { subject: 'partner.test', listed: false },
      { subject: 'placeholder.test', listed: true },
      { subject: 'shop.k.test', listed: false },
      { subject: 'sub.d.test', listed: false },
    ]);
    const app = await q(`SELECT via_subject, via_kind, ad_system_domain, seller_account_id FROM authorized_sellers WHERE subject = '${APP}' AND snapshot_date = ${d(2)} ORDER BY via_kind`);
    expect(app).toEqual([
      { via_subject: 'dev.test', via_kind: 'developer_url', ad_system_domain: 'ssp.test', seller_account_id: '11' },
      { via_subject: 'partner.test', via_kind: 'inventorypartnerdomain', ad_system_domain: 'adx.test', seller_account_id: '7' },
    ]);
    const dd = await q(`SELECT via_subject, via_kind FROM authorized_sellers WHERE subject = 'd.test' AND snapshot_date = ${d(1)} ORDER BY via_kind`);
    expect(dd).toEqual([
      { via_subject: 'partner.test', via_kind: 'inventorypartnerdomain' },
      { via_subject: 'd.test', via_kind: 'self' },
    ]);
  });

  it('record_changes: what each site added and removed between its observed nights', async () => {
    const rows = await q(`SELECT strftime(snapshot_date, '%m-%d') AS n, strftime(previous_date, '%m-%d') AS p, subject, change, ad_system_domain || ',' || seller_account_id || ',' || relationship AS r FROM record_changes ORDER BY n, subject, change, r`);
    expect(rows).toEqual([
      { n: '11-21', p: '11-20', subject: 'a.test', change: 'added', r: 'adx.test,2,DIRECT' },
      { n: '11-21', p: '11-20', subject: 'b.test', change: 'removed', r: 'adx.test,3,RESELLER' },
      { n: '11-21', p: '11-20', subject: 'c.test', change: 'added', r: 'ssp.test,11,DIRECT' },
      { n: '11-28', p: '11-21', subject: 'a.test', change: 'removed', r: 'ssp.test,10,RESELLER' },
    ]);
  });

  it('seller_changes: added, removed, renamed and retyped sellers between nights', async () => {
    const rows = await q(`SELECT strftime(snapshot_date, '%m-%d') AS n, ad_system_domain AS a, seller_id AS id, change FROM seller_changes ORDER BY n, a, id, change`);
    expect(rows).toEqual([
      { n: '11-21', a: 'adx.test', id: '3', change: 'removed' },
      { n: '11-21', a: 'adx.test', id: '4', change: 'added' },
      { n: '11-28', a: 'adx.test', id: '1', change: 'name_changed' },
      { n: '11-28', a: 'adx.test', id: '2', change: 'type_changed' },
      // cut.test's file could not be read on night 2: no change then, and night 3 against night 1.
      { n: '11-28', a: 'cut.test', id: 'c3', change: 'added' },
      { n: '11-28', a: 's7.test', id: '71', change: 'added' },
    ]);
  });

  it('seller_changes across a night whose sellers.json was unreadable: compared with the last readable night, no phantom sellers', async () => {
    const files = await q(`SELECT strftime(snapshot_date, '%m-%d') AS n, status, records FROM files WHERE file_kind = 'sellers.json' AND subject = 'cut.test' ORDER BY n`);
    expect(files).toEqual([
      { n: '11-20', status: 'ok', records: 2 },
      { n: '11-21', status: 'invalid_json', records: 0 },
      { n: '11-28', status: 'ok', records: 3 },
    ]);
    const obs = await q(`SELECT strftime(snapshot_date, '%m-%d') AS n, strftime(previous_date, '%m-%d') AS p FROM file_observations WHERE file_kind = 'sellers.json' AND subject = 'cut.test' ORDER BY n`);
    expect(obs).toEqual([
      { n: '11-20', p: null },
      { n: '11-28', p: '11-20' },
    ]);
    const changes = await q(`SELECT strftime(snapshot_date, '%m-%d') AS n, strftime(previous_date, '%m-%d') AS p, seller_id, change FROM seller_changes WHERE ad_system_domain = 'cut.test'`);
    expect(changes).toEqual([{ n: '11-28', p: '11-20', seller_id: 'c3', change: 'added' }]);
    // Independently: the sellers of the readable nights, night 3 against night 1.
    const added = await q(`
      SELECT seller_id FROM sellers WHERE ad_system_domain = 'cut.test' AND snapshot_date = ${d(2)}
      EXCEPT SELECT seller_id FROM sellers WHERE ad_system_domain = 'cut.test' AND snapshot_date = ${d(0)}`);
    expect(added).toEqual([{ seller_id: 'c3' }]);
    // The record naming cut.test is not checkable on night 2 (not missing either).
    const m = await q(`SELECT strftime(snapshot_date, '%m-%d') AS n, seller_found, seller_missing FROM seller_match WHERE ad_system_domain = 'cut.test' ORDER BY n`);
    expect(m).toEqual([
      { n: '11-20', seller_found: true, seller_missing: false },
      { n: '11-21', seller_found: false, seller_missing: false },
      { n: '11-28', seller_found: true, seller_missing: false },
    ]);
  });

  it('owner_domain_consistent: a declared OWNERDOMAIN decides, even on a subdomain of the seller’s domain', async () => {
    const rows = await q(`SELECT DISTINCT subject, owner_domain, owner_domain_consistent AS ok FROM seller_match WHERE ad_system_domain = 'own-ssp.test' ORDER BY subject`);
    expect(rows).toEqual([
      { subject: 'k.test', owner_domain: 'k.test', ok: true },
      { subject: 'news.k.test', owner_domain: 'elsewhere.test', ok: false },
      { subject: 'shop.k.test', owner_domain: 'shop.k.test', ok: true },
    ]);
  });

  it('sellers_json_availability: ad systems and intermediaries apart, on every night', async () => {
    const rows = await q(`SELECT strftime(snapshot_date, '%m-%d') AS n, role, status, files FROM sellers_json_availability ORDER BY n, role, status`);
    const independent = await q(`
      SELECT strftime(snapshot_date, '%m-%d') AS n, CASE via WHEN 'intermediary' THEN 'intermediary' ELSE 'ad_system' END AS role, status, count(*) AS files
      FROM files WHERE file_kind = 'sellers.json' GROUP BY ALL ORDER BY n, role, status`);
    expect(rows).toEqual(independent);
    // Night 2: the ad systems adx, ssp, alias-one, alias-two, own-ssp read and cut.test not JSON; the
    // intermediaries s7 (carried forward), s10 and s11 (404).
    expect(rows.filter((r) => r.n === '11-21')).toEqual([
      { n: '11-21', role: 'ad_system', status: 'invalid_json', files: 1 },
      { n: '11-21', role: 'ad_system', status: 'ok', files: 5 },
      { n: '11-21', role: 'intermediary', status: 'not_found', files: 2 },
      { n: '11-21', role: 'intermediary', status: 'ok', files: 1 },
    ]);
    const shares = await q(`SELECT role, sum(share) AS total FROM sellers_json_availability GROUP BY snapshot_date, role`);
    for (const r of shares) expect(Number(r.total)).toBeCloseTo(1, 12);
  });

  it('ad_system_alias_candidates: the pair sharing its certification-authority id, its sellers.json body and its URL', async () => {
    const rows = await q(`SELECT strftime(snapshot_date, '%m-%d') AS n, ad_system_domain AS a, other_domain AS b, evidence, detail, files, known_same_company FROM ad_system_alias_candidates ORDER BY n, evidence, a`);
    const sha = await q(`SELECT DISTINCT sha256, url FROM files WHERE file_kind = 'sellers.json' AND subject = 'alias-one.test'`);
    expect(sha).toHaveLength(1);
    expect(rows).toEqual(
      ['11-20', '11-21', '11-28'].flatMap((n) => [
        { n, a: 'alias-one.test', b: 'alias-two.test', evidence: 'cert_authority_id', detail: 'cafe0001', files: 3, known_same_company: false },
        { n, a: 'alias-one.test', b: 'alias-two.test', evidence: 'sellers_json_content', detail: sha[0]!.sha256, files: null, known_same_company: false },
        { n, a: 'alias-one.test', b: 'alias-two.test', evidence: 'sellers_json_url', detail: 'https://alias-one.test/sellers.json', files: null, known_same_company: false },
      ]),
    );
    // adx.test's own id is none (h.test's 'other99' is one file of four): no pair with it.
    expect(await q(`SELECT count(*) AS n FROM ad_system_alias_candidates WHERE 'adx.test' IN (ad_system_domain, other_domain)`)).toEqual([{ n: 0 }]);
  });

  it('sellers_files: the header of each sellers.json read, on every night', async () => {
    const rows = await q(`SELECT strftime(snapshot_date, '%m-%d') AS n, ad_system_domain AS a, status, version, sellers FROM sellers_files WHERE ad_system_domain IN ('adx.test', 's7.test', 'ssp.test') ORDER BY a, n`);
    expect(rows).toEqual([
      { n: '11-20', a: 'adx.test', status: 'ok', version: '1.0', sellers: 5 },
      { n: '11-21', a: 'adx.test', status: 'ok', version: '1.0', sellers: 5 },
      { n: '11-28', a: 'adx.test', status: 'ok', version: '1.0', sellers: 5 },
      { n: '11-20', a: 's7.test', status: 'ok', version: '1.0', sellers: 1 },
      { n: '11-21', a: 's7.test', status: 'ok', version: '1.0', sellers: 1 },
      { n: '11-28', a: 's7.test', status: 'ok', version: '1.0', sellers: 2 },
      { n: '11-20', a: 'ssp.test', status: 'ok', version: '1.0', sellers: 4 },
      { n: '11-21', a: 'ssp.test', status: 'ok', version: '1.0', sellers: 4 },
      { n: '11-28', a: 'ssp.test', status: 'ok', version: '1.0', sellers: 4 },
    ]);
  });

  it('seller_match: ids matched trimmed and case-insensitively on every night, seller_found_exact byte for byte', async () => {
    const rows = await q(`SELECT strftime(snapshot_date, '%m-%d') AS n, seller_found AS f, seller_found_exact AS x, seller_missing AS m, seller_name AS name FROM seller_match WHERE subject = 'e.test' AND seller_account_id = 'ab-13' ORDER BY n`);
    expect(rows).toEqual(['11-20', '11-21', '11-28'].map((n) => ({ n, f: true, x: false, m: false, name: 'Thirteen' })));
  });

  it('intermediaries on every night: via intermediary, carried forward like any file, each asked once a night', async () => {
    const rows = await q(`SELECT strftime(snapshot_date, '%m-%d') AS n, subject, via, status, obtained, records FROM files WHERE file_kind = 'sellers.json' AND via = 'intermediary' ORDER BY subject, n`);
    expect(rows.map((r) => `${r.n} ${r.subject} ${r.status}/${r.obtained}/${r.records}`)).toEqual([
      '11-20 s10.test not_found/fetched/0',
      '11-21 s10.test not_found/fetched/0',
      '11-28 s10.test not_found/fetched/0',
      '11-20 s11.test not_found/fetched/0',
      '11-21 s11.test not_found/fetched/0',
      '11-28 s11.test not_found/fetched/0',
      // seller 2 becomes BOTH on night 3: its domain s2.test is asked from then on.
      '11-28 s2.test not_found/fetched/0',
      // seller 3 (naming s3.test) is in adx.test's file on night 1 only.
      '11-20 s3.test not_found/fetched/0',
      '11-20 s7.test ok/fetched/1',
      '11-21 s7.test ok/carried_forward/1',
      '11-28 s7.test ok/fetched/2',
    ]);
    expect(await q(`SELECT snapshot_date, url, count(*) AS n FROM fetches WHERE file_kind = 'sellers.json' GROUP BY ALL HAVING count(*) > 1`)).toEqual([]);
    const reach = await q(`SELECT strftime(snapshot_date, '%m-%d') AS n, depth, list(seller_id ORDER BY seller_id) AS ids FROM seller_reach WHERE ad_system_domain = 'adx.test' AND via_domain = 's7.test' GROUP BY ALL ORDER BY n`);
    expect(reach).toEqual([
      { n: '11-20', depth: 1, ids: ['70'] },
      { n: '11-21', depth: 1, ids: ['70'] },
      { n: '11-28', depth: 1, ids: ['70', '71'] },
    ]);
    // An intermediary's seller changes are in seller_changes, under its own domain.
    expect(await q(`SELECT strftime(snapshot_date, '%m-%d') AS n, seller_id, change FROM seller_changes WHERE ad_system_domain = 's7.test'`)).toEqual([{ n: '11-28', seller_id: '71', change: 'added' }]);
  });

  it('files.lines: physical lines of each text body, on every night', async () => {
    const rows = await q(`SELECT strftime(snapshot_date, '%m-%d') AS n, subject, file_kind, lines FROM files WHERE subject IN ('a.test', 'html.test', 'd.test', 'big.test') AND file_kind <> 'sellers.json' ORDER BY subject, file_kind, n`);
    const by = (s: string, k: string) => rows.filter((r) => r.subject === s && r.file_kind === k).map((r) => r.lines);
    expect(by('a.test', 'ads.txt')).toEqual([3, 4, 3]);
    expect(by('d.test', 'robots.txt')).toEqual([2, 2, 2]);
    expect(by('html.test', 'robots.txt')).toEqual([1, 1, 1]);
    // big.test: night 2 carries the night-1 copy forward; night 3's body is cut at the 4 KiB cap mid-line.
    const cut = junk(300).slice(0, 4096);
    expect(by('big.test', 'ads.txt')).toEqual([1, 1, cut.split('\n').length]);
  });

  it('record_history and seller_history: first and last night seen', async () => {
    const r = await q(`SELECT strftime(first_seen, '%m-%d') AS f, strftime(last_seen, '%m-%d') AS l, nights FROM record_history WHERE subject = 'a.test' AND seller_account_id = '10'`);
    expect(r).toEqual([{ f: '11-20', l: '11-21', nights: 2 }]);
    const s = await q(`SELECT seller_id, strftime(first_seen, '%m-%d') AS f, strftime(last_seen, '%m-%d') AS l, latest_seller_type AS t FROM seller_history WHERE ad_system_domain = 'adx.test' AND seller_id IN ('2', '3', '4') ORDER BY 1`);
    expect(s).toEqual([
      { seller_id: '2', f: '11-20', l: '11-28', t: 'BOTH' },
      { seller_id: '3', f: '11-20', l: '11-20', t: 'INTERMEDIARY' },
      { seller_id: '4', f: '11-21', l: '11-28', t: 'PUBLISHER' },
    ]);
  });
});
