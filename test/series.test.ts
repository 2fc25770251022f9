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
};
const LISTED = ['a.test', 'b.test', 'c.test', 'd.test', 'e.test', 'f.test', 'html.test', 'placeholder.test', 'big.test', 'down.test'];

function txt(body: string): Served {
  return { status: 200, body, headers: TEXT };
}
function junk(n: number): string {
  return Array.from({ length: n }, (_, i) => `junk.test, j-${i}, RESELLER\n`).join('');
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
    const shares = await q(`SELECT strftime(snapshot_date, '%m-%d') AS n, sites, share_full, share_full_through_star, share_partial FROM ai_crawler_blocking WHERE user_agent = 'GPTBot' ORDER BY n`);
    expect(shares).toEqual([
      { n: '11-20', sites: 10, share_full: 0, share_full_through_star: 0, share_partial: 0.1 },
      { n: '11-21', sites: 10, share_full: 0.1, share_full_through_star: 0.1, share_partial: 0 },
      { n: '11-28', sites: 10, share_full: 0.1, share_full_through_star: 0.1, share_partial: 0 },
    ]);
  });

  it('the placeholder ad system has no sellers.json request on any night', async () => {
    expect(await q(`SELECT count(*) AS n FROM fetches WHERE host = 'placeholder.example.com'`)).toEqual([{ n: 0 }]);
  });
});

describe('views on every night', () => {
  it('adoption', async () => {
    const rows = await q(`SELECT strftime(snapshot_date, '%m-%d') AS n, count(*) AS sites, count(*) FILTER (WHERE has_robots_txt) AS robots, count(*) FILTER (WHERE ads_txt_status = 'ok') AS ok, count(*) FILTER (WHERE ads_txt_valid) AS valid FROM adoption GROUP BY 1 ORDER BY 1`);
    // robots.txt: every site but html.test. ok: a, b (night 1), c (nights 2–3), d, e, big (nights 1–2), down.
    expect(rows).toEqual([
      { n: '11-20', sites: 10, robots: 9, ok: 6, valid: 7 },
      { n: '11-21', sites: 10, robots: 9, ok: 6, valid: 7 },
      { n: '11-28', sites: 10, robots: 9, ok: 5, valid: 6 },
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
      { subject: APP, listed: true },
      { subject: 'partner.test', listed: false },
      { subject: 'placeholder.test', listed: true },
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
      { n: '11-28', a: 's7.test', id: '71', change: 'added' },
    ]);
  });

  it('sellers_files: the header of each sellers.json read, on every night', async () => {
    const rows = await q(`SELECT strftime(snapshot_date, '%m-%d') AS n, ad_system_domain AS a, status, version, sellers FROM sellers_files ORDER BY a, n`);
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
