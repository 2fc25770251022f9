import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../pipelines/crawl.js';
import { openSnapshotDb } from '../src/sql/snapshot-db.js';
import { buildReport, type ReportJson } from '../src/report/index.js';
import { CTV_STORES, SECTIONS } from '../src/report/figures.js';
import { OWNER_CSV, registrableOwner } from '../src/report/owners.js';
import { cellConverter } from '../src/sql/output.js';
import { percentText } from '../src/text/percent.js';
import { startLocalWeb, type LocalWeb } from './helpers/local-server.js';
import { runCli } from './helpers/run-cli.js';
import { createTestTls } from './helpers/tls.js';
import { useTempDirs } from './helpers/tmp.js';

/**
 * `adsnap report` over a three-night series of a small web whose files change in known ways. Each
 * section's figures are checked against what the web served (worked out by hand below) and
 * against independent SQL over the base tables; every figure's SQL, run again with the setup
 * statements of report.json, gives the rows of report.json.
 */
const tempDir = useTempDirs('report');
const T0 = Date.parse('2026-11-20T02:00:00Z');
const DAY = 86_400_000;
const NIGHTS = [
  { date: '2026-11-20', now: new Date(T0) },
  { date: '2026-11-21', now: new Date(T0 + DAY) },
  { date: '2026-11-22', now: new Date(T0 + 2 * DAY) },
] as const;
const TEXT = { 'content-type': 'text/plain' };
type Served = { status: number; body?: string; headers?: Record<string, string> };

/** What each URL serves on each night (index = night); a missing night repeats the previous one. */
const SITE: Record<string, Served[]> = {
  // Rank 1. Owner a.test; adx.test seller 1 DIRECT and ssp.test 10 RESELLER; adx.test 2 added on night 2.
  'https://a.test/ads.txt': [
    txt('OWNERDOMAIN=a.test\nMANAGERDOMAIN=mgr.test,US\nadx.test, 1, DIRECT, cert1\nssp.test, 10, RESELLER\n'),
    txt('OWNERDOMAIN=a.test\nMANAGERDOMAIN=mgr.test,US\nadx.test, 1, DIRECT, cert1\nssp.test, 10, RESELLER\nadx.test, 2, DIRECT\n'),
  ],
  // Rank 2. Claims adx.test seller 1 DIRECT too, under another owner (pooling); loses its file on night 3.
  'https://b.test/ads.txt': [txt('OWNERDOMAIN=b.test\nadx.test, 1, DIRECT\nadx.test, 77, DIRECT\n'), txt('OWNERDOMAIN=b.test\nadx.test, 1, DIRECT\nadx.test, 77, DIRECT\n'), { status: 404 }],
  // Rank 3: a placeholder. Rank 4: no file on night 1, one from night 2.
  'https://c.test/ads.txt': [txt('placeholder.example.com, placeholder, DIRECT, placeholder\n')],
  'https://d.test/ads.txt': [{ status: 404 }, txt('ssp.test, 10, DIRECT\n')],
  // robots.txt: a.test blocks GPTBot by name; b.test blocks everyone; c.test blocks part of the site.
  'https://a.test/robots.txt': [txt('User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n')],
  'https://b.test/robots.txt': [txt('User-agent: *\nDisallow: /\n')],
  'https://c.test/robots.txt': [txt('User-agent: *\nDisallow: /private/\n')],
  'https://d.test/robots.txt': [{ status: 404 }],
  // The developer host of the Play app and of the Galaxy Store (phone) app.
  'https://dev.test/app-ads.txt': [txt('ssp.test, 11, RESELLER\n')],
  // The developer host of the Samsung TV app (CTV): declares OWNERDOMAIN=www.a.test, which is
  // a.test's business (registrable domain a.test), and claims adx.test seller 1 DIRECT as a.test does.
  'https://tvdev.test/app-ads.txt': [txt('OWNERDOMAIN=www.a.test\nadx.test, 1, DIRECT\n')],
  // sellers.json: adx.test lists seller 1 (domain a.test) and 2; drops 2 and adds 3 on night 3.
  'https://adx.test/sellers.json': [
    sellers([['1', 'PUBLISHER', 'Alpha', 'a.test'], ['2', 'PUBLISHER', 'Two', 'a.test']]),
    sellers([['1', 'PUBLISHER', 'Alpha', 'a.test'], ['2', 'PUBLISHER', 'Two', 'a.test']]),
    sellers([['1', 'PUBLISHER', 'Alpha', 'a.test'], ['3', 'INTERMEDIARY', 'Three', 'three.test']]),
  ],
  // The intermediary adx.test names on night 3 (depth 1): a publisher, and a BOTH entry naming adx.test back (a cycle).
  'https://three.test/sellers.json': [sellers([['30', 'PUBLISHER', 'Thirty', 'pub30.test'], ['31', 'BOTH', 'ThirtyOne', 'https://ADX.test/']])],
  // ssp.test publishes its sellers.json on another host (--sellers-location), not at its root.
  'https://ssp.test/sellers.json': [{ status: 404 }],
  'https://pub.ssp.test/sellers.json': [sellers([['10', 'INTERMEDIARY', 'Ten', 'ssp.test'], ['11', 'BOTH', 'Eleven', 'ssp.test']])],
};
const LISTED = ['a.test', 'b.test', 'c.test', 'd.test'];
const APP = 'https://play.google.com/store/apps/details?id=com.example.game';
/** A Samsung TV app (samsung.com/<cc>/appstore/app/<id>: CTV) and a Galaxy Store app (phones: not CTV). */
const TV_APP = 'https://www.samsung.com/us/appstore/app/G12345678901';
const GALAXY_APP = 'https://galaxystore.samsung.com/detail/com.example.phone';

function txt(body: string): Served {
  return { status: 200, body, headers: TEXT };
}
function sellers(entries: [string, string, string, string][]): Served {
  const list = entries.map(([seller_id, seller_type, name, domain]) => ({ seller_id, seller_type, name, domain }));
  return { status: 200, body: JSON.stringify({ version: '1.0', contact_email: 'ops@adx.test', sellers: list }), headers: { 'content-type': 'application/json' } };
}

let web: LocalWeb;
let out: string;
let reportDir: string;
let report: ReportJson;
let night = 0;

beforeAll(async () => {
  const tls = await createTestTls();
  web = await startLocalWeb(tls);
  const hosts = new Set(Object.keys(SITE).map((u) => new URL(u).host));
  for (const h of hosts) if (!SITE[`https://${h}/robots.txt`]) SITE[`https://${h}/robots.txt`] = [txt('User-agent: *\nAllow: /\n')];
  for (const [url, nights] of Object.entries(SITE)) {
    const serve = (_req: unknown, res: import('node:http').ServerResponse) => {
      const s = nights[Math.min(night, nights.length - 1)]!;
      res.writeHead(s.status, s.headers ?? TEXT).end(s.body ?? '');
    };
    web.route(url, serve);
    web.route(url.replace('https://', 'http://'), serve);
  }
  const dir = tempDir();
  out = path.join(dir, 'out');
  const domains = path.join(dir, 'top.csv');
  writeFileSync(domains, LISTED.map((d, i) => `${i + 1},${d}`).join('\n') + '\n');
  const apps = path.join(dir, 'apps.csv');
  writeFileSync(apps, `store_url,developer_url\n${APP},https://dev.test/\n${TV_APP},https://tvdev.test/\n${GALAXY_APP},https://dev.test/\n`);
  for (const [i, n] of NIGHTS.entries()) {
    night = i;
    await crawl({ domains, apps, outDir: out, snapshotDate: n.date, now: n.now, checkpointSeconds: 0, sellersLocations: { 'ssp.test': 'https://pub.ssp.test/sellers.json' }, fetch: { connectTo: web.connectTo, caCerts: [tls.caPem], retries: 0 } });
  }
  reportDir = path.join(dir, 'report');
  await buildReport({ roots: [out], outDir: reportDir, rankBuckets: [2, 3], now: new Date('2026-11-23T00:00:00Z') });
  report = JSON.parse(readFileSync(path.join(reportDir, 'report.json'), 'utf8')) as ReportJson;
}, 400_000);

afterAll(async () => {
  await web?.close();
});

function figure(key: string) {
  const f = report.sections.flatMap((s) => s.figures).find((x) => x.key === key);
  if (!f) throw new Error(`no figure ${key}`);
  return f;
}
/** Rows of a figure with only the named columns. */
function pick(key: string, cols: string[]) {
  return figure(key).rows.map((r) => Object.fromEntries(cols.map((c) => [c, r[c]])));
}

describe('report.json: each section against what the web served', () => {
  it('covers the three nights, every section and figure by its stable key', () => {
    expect(report.window.nights).toEqual(NIGHTS.map((n) => n.date));
    expect(report.missing).toEqual([]);
    expect(report.sections.map((s) => s.key)).toEqual(SECTIONS.map((s) => s.key));
    expect(report.sections.flatMap((s) => s.figures.map((f) => f.key))).toEqual(SECTIONS.flatMap((s) => s.figures.map((f) => f.key)));
    for (const f of report.sections.flatMap((s) => s.figures)) expect(existsSync(path.join(reportDir, `${f.key}.csv`)), f.key).toBe(true);
  });

  it('0. the headline figures of the latest night, worked out by hand, each with its scope', () => {
    // Night 3: listed a, b (404), c (placeholder only), d; declaring a and d. Root records: a's adx 1
    // DIRECT, ssp 10 RESELLER, adx 2 DIRECT and d's ssp 10 DIRECT; adx 2 left adx.test's sellers.json.
    const h = report.headline;
    const nd = (k: keyof typeof h) => [h[k].n, h[k].denominator];
    expect(nd('adstxt_declaring')).toEqual([2, 4]);
    expect(nd('adstxt_valid')).toEqual([2, 4]);
    expect(nd('adstxt_placeholder_only_sites')).toEqual([1, 4]);
    expect(nd('app_ads_declaring')).toEqual([3, 3]);
    expect(nd('direct_record_share_root')).toEqual([3, 4]);
    expect(nd('ownerdomain_declaring')).toEqual([1, 2]);
    expect(nd('sellers_json_readable_ad_systems')).toEqual([2, 2]);
    expect(nd('seller_id_not_found_root')).toEqual([1, 4]);
    expect([h.ad_systems_distinct_root.value, h.ad_companies_distinct_root.value]).toEqual([2, 2]);
    expect(h.adstxt_declaring.value).toBe(0.5);
    // Wilson 95% for 2 of 4: (0.5 + z²/8 ± z·sqrt(1/16 + z²/64)) / (1 + z²/4).
    expect(h.adstxt_declaring.ci95![0]).toBeCloseTo(0.15004, 4);
    expect(h.adstxt_declaring.ci95![1]).toBeCloseTo(0.84996, 4);
    expect(h.ad_systems_distinct_root).toEqual({ value: 2, scope: 'root records of declaring listed sites', definition: expect.any(String) });
    expect(figure('headline.figures').rows.map((r) => r.key)).toEqual(Object.keys(h));
  });

  it('1. adoption by rank bucket (buckets 2 and 3), cumulative top N, and app-ads.txt by store, Samsung TV apart from the Galaxy Store', () => {
    // c.test (rank 3) serves only the placeholder record: placeholder-only, neither declaring nor valid.
    const cols = ['snapshot_date', 'rank_bucket', 'sites', 'declaring', 'valid', 'placeholder_only', 'content_type_violation'];
    expect(pick('adoption.ads_txt_by_rank', cols)).toEqual([
      { snapshot_date: '2026-11-20', rank_bucket: '1–2', sites: 2, declaring: 2, valid: 2, placeholder_only: 0, content_type_violation: 0 },
      { snapshot_date: '2026-11-20', rank_bucket: '2–3', sites: 1, declaring: 0, valid: 0, placeholder_only: 1, content_type_violation: 0 },
      { snapshot_date: '2026-11-20', rank_bucket: 'beyond 3', sites: 1, declaring: 0, valid: 0, placeholder_only: 0, content_type_violation: 0 },
      { snapshot_date: '2026-11-21', rank_bucket: '1–2', sites: 2, declaring: 2, valid: 2, placeholder_only: 0, content_type_violation: 0 },
      { snapshot_date: '2026-11-21', rank_bucket: '2–3', sites: 1, declaring: 0, valid: 0, placeholder_only: 1, content_type_violation: 0 },
      { snapshot_date: '2026-11-21', rank_bucket: 'beyond 3', sites: 1, declaring: 1, valid: 1, placeholder_only: 0, content_type_violation: 0 },
      { snapshot_date: '2026-11-22', rank_bucket: '1–2', sites: 2, declaring: 1, valid: 1, placeholder_only: 0, content_type_violation: 0 },
      { snapshot_date: '2026-11-22', rank_bucket: '2–3', sites: 1, declaring: 0, valid: 0, placeholder_only: 1, content_type_violation: 0 },
      { snapshot_date: '2026-11-22', rank_bucket: 'beyond 3', sites: 1, declaring: 1, valid: 1, placeholder_only: 0, content_type_violation: 0 },
    ]);
    expect(figure('adoption.ads_txt_by_rank').rows[6]!.valid_share).toBe(0.5);
    // Cumulative: top 2 (a, b), top 3 (a, b, c); d.test (rank 4) is beyond every bound.
    expect(pick('adoption.ads_txt_top_n', ['snapshot_date', 'top_n', 'sites', 'declaring', 'valid', 'placeholder_only'])).toEqual([
      { snapshot_date: '2026-11-20', top_n: 2, sites: 2, declaring: 2, valid: 2, placeholder_only: 0 },
      { snapshot_date: '2026-11-20', top_n: 3, sites: 3, declaring: 2, valid: 2, placeholder_only: 1 },
      { snapshot_date: '2026-11-21', top_n: 2, sites: 2, declaring: 2, valid: 2, placeholder_only: 0 },
      { snapshot_date: '2026-11-21', top_n: 3, sites: 3, declaring: 2, valid: 2, placeholder_only: 1 },
      { snapshot_date: '2026-11-22', top_n: 2, sites: 2, declaring: 1, valid: 1, placeholder_only: 0 },
      { snapshot_date: '2026-11-22', top_n: 3, sites: 3, declaring: 1, valid: 1, placeholder_only: 1 },
    ]);
    expect(pick('adoption.app_ads_txt_by_store', ['snapshot_date', 'store', 'ctv', 'apps', 'declaring', 'valid'])).toEqual(
      NIGHTS.flatMap((n) => [
        { snapshot_date: n.date, store: 'google_play', ctv: false, apps: 1, declaring: 1, valid: 1 },
        { snapshot_date: n.date, store: 'samsung', ctv: false, apps: 1, declaring: 1, valid: 1 },
        { snapshot_date: n.date, store: 'samsung (TV)', ctv: true, apps: 1, declaring: 1, valid: 1 },
      ]),
    );
    // Only stores the store classifier produces, and all of whose listings are TV apps.
    expect(CTV_STORES).toEqual(['roku', 'lg']);
  });

  it('2. variables: OWNERDOMAIN in a.test and b.test, MANAGERDOMAIN with its country, the CTV app-ads.txt apart', async () => {
    const owner = figure('variables.declared').rows.filter((r) => r.name === 'OWNERDOMAIN' && r.file_group === 'ads.txt (root)');
    // Root ads.txt text files: a, b, c (placeholder) on night 1; + d on night 2; b gone on night 3.
    expect(owner.map((r) => [r.snapshot_date, r.text_files, r.files_declaring])).toEqual([
      ['2026-11-20', 3, 2],
      ['2026-11-21', 4, 2],
      ['2026-11-22', 3, 1],
    ]);
    // tvdev.test (the Samsung TV app's) is CTV and declares OWNERDOMAIN; dev.test serves the Play
    // and the Galaxy Store apps: not CTV (a Samsung store counted whole as CTV would make it CTV).
    const appOwner = figure('variables.declared').rows.filter((r) => r.name === 'OWNERDOMAIN' && String(r.file_group).startsWith('app-ads.txt'));
    expect(appOwner.map((r) => [r.snapshot_date, r.file_group, r.text_files, r.files_declaring])).toEqual(
      NIGHTS.flatMap((n) => [
        [n.date, 'app-ads.txt (CTV)', 1, 1],
        [n.date, 'app-ads.txt (not CTV)', 1, 0],
      ]),
    );
    const db = await openSnapshotDb(out);
    try {
      const hosts = await db.rows(`SELECT DISTINCT store_url, subject FROM apps WHERE store = 'samsung' ORDER BY store_url`);
      expect(hosts).toEqual([
        { store_url: GALAXY_APP, subject: 'dev.test' },
        { store_url: TV_APP, subject: 'tvdev.test' },
      ]);
    } finally {
      db.close();
    }
    expect(pick('variables.managerdomain_countries', ['country', 'declarations', 'files'])).toEqual([{ country: 'US', declarations: 1, files: 1 }]);
  });

  it('3. ad systems of the latest night by declaring sites, and DIRECT / RESELLER by scope over time', () => {
    // Night 3, declaring sites a.test (adx 1 DIRECT, ssp 10 RESELLER, adx 2 DIRECT) and d.test (ssp 10 DIRECT);
    // c.test's placeholder names no ad system. Files over every scope add dev.test (ssp 11) and tvdev.test (adx 1).
    const cols = ['ad_system_domain', 'company', 'sites', 'sites_direct', 'site_share', 'records', 'direct_share', 'files', 'cert_id_share'];
    expect(pick('ad_systems.top', cols)).toEqual([
      { ad_system_domain: 'ssp.test', company: 'ssp.test', sites: 2, sites_direct: 1, site_share: 1, records: 2, direct_share: 0.5, files: 3, cert_id_share: 0 },
      { ad_system_domain: 'adx.test', company: 'adx.test', sites: 1, sites_direct: 1, site_share: 0.5, records: 2, direct_share: 1, files: 2, cert_id_share: 0.3333 },
    ]);
    expect(pick('ad_systems.companies', ['company', 'ad_system_domains', 'sites', 'sites_direct', 'records'])).toEqual([
      { company: 'ssp.test', ad_system_domains: 1, sites: 2, sites_direct: 1, records: 2 },
      { company: 'adx.test', ad_system_domains: 1, sites: 1, sites_direct: 1, records: 2 },
    ]);
    // Night 1: root a.test (adx 1 DIRECT, ssp 10 RESELLER), b.test (adx 1, adx 77 DIRECT); app dev.test (ssp 11 RESELLER), tvdev.test (adx 1 DIRECT).
    const rel = figure('ad_systems.relationship').rows.filter((r) => r.snapshot_date === '2026-11-20');
    expect(rel.map((r) => [r.scope, r.relationship, r.records, r.share])).toEqual([
      ['app', 'DIRECT', 1, 0.5],
      ['app', 'RESELLER', 1, 0.5],
      ['root', 'DIRECT', 3, 0.75],
      ['root', 'RESELLER', 1, 0.25],
    ]);
  });

  it('4. consistency: b.test seller 77 missing from adx.test; the owner mismatches of b.test (root) and tvdev.test (app)', () => {
    const night1 = figure('consistency.over_time').rows.find((r) => r.snapshot_date === '2026-11-20')!;
    // Over time: the root records only (a.test and b.test); tvdev.test's mismatch is an app record.
    expect([night1.records, night1.checkable, night1.missing, night1.owner_mismatch]).toEqual([4, 4, 1, 1]);
    const owners = figure('consistency.by_ad_system').rows.filter((r) => r.ad_system_domain !== null && Number(r.owner_mismatch) > 0);
    // Night 3 by scope: b.test has no file any more; d.test (no OWNERDOMAIN) claims ssp.test 10 DIRECT, whose
    // entry names ssp.test; seller_match compares hosts, so www.a.test (tvdev.test's OWNERDOMAIN) is not a.test.
    expect(owners.map((r) => [r.scope, r.ad_system_domain, r.owner_mismatch])).toEqual([
      ['root', 'ssp.test', 1],
      ['app', 'adx.test', 1],
    ]);
    const adx = figure('consistency.by_ad_system').rows.filter((r) => r.ad_system_domain === 'adx.test');
    // Night 3: a.test's adx 1 and adx 2 (root), tvdev.test's adx 1 (app), each scope apart; adx 2 is no longer in sellers.json.
    expect(adx.map((r) => [r.scope, r.records, r.checkable, r.missing, r.missing_share])).toEqual([
      ['root', 2, 2, 1, 0.5],
      ['app', 1, 1, 0, 0],
    ]);
  });

  it('4. records checkable at the default sellers.json location and with the locations table', async () => {
    // Night 3's 7 records of valid files: adx.test 3 (asked at its default location, read), ssp.test 3
    // (asked at pub.ssp.test, a location: checkable only with the table), placeholder.example.com 1 (never checkable).
    expect(pick('consistency.sellers_location_effect', ['reading', 'records', 'checkable', 'checkable_share', 'ad_systems_at_a_location'])).toEqual([
      { reading: 'default location only', records: 7, checkable: 3, checkable_share: 0.4286, ad_systems_at_a_location: 1 },
      { reading: 'with the locations table', records: 7, checkable: 6, checkable_share: 0.8571, ad_systems_at_a_location: 1 },
    ]);
    expect(figure('consistency.sellers_location').rows).toEqual([
      { ad_system_domain: 'ssp.test', served_by: 'locations table', sellers_json_url: 'https://pub.ssp.test/sellers.json', status: 'ok', records: 3, checkable_at_default_location: 0, checkable_with_location: 3 },
    ]);
    // Independently: the URL of the request whose body each ad system's files row describes (the
    // last sellers.json request: the crawl stops at the first readable file), and its file's validity.
    const db = await openSnapshotDb(out);
    try {
      const [want] = await db.rows(`WITH asked AS (
          SELECT subject, arg_max(url, started_at) AS url FROM fetches WHERE file_kind = 'sellers.json' AND snapshot_date = DATE '2026-11-22' GROUP BY 1)
        SELECT count(*) AS records,
          count(*) FILTER (WHERE sf.valid AND a.url = 'https://' || r.ad_system_domain || '/sellers.json') AS at_default,
          count(*) FILTER (WHERE sf.valid) AS with_locations
        FROM ads_records r
        JOIN files f ON f.snapshot_date = r.snapshot_date AND f.subject = r.subject AND f.file_kind = r.file_kind AND f.valid
        LEFT JOIN files sf ON sf.snapshot_date = r.snapshot_date AND sf.subject = r.ad_system_domain AND sf.file_kind = 'sellers.json'
        LEFT JOIN asked a ON a.subject = r.ad_system_domain
        WHERE r.snapshot_date = DATE '2026-11-22'`);
      expect(want).toEqual({ records: 7, at_default: 3, with_locations: 6 });
    } finally {
      db.close();
    }
  });

  it('5. pooling: adx.test seller 1 claimed DIRECT by a.test (its owner in sellers.json), b.test, and tvdev.test for www.a.test', async () => {
    const series = figure('pooling.over_time').rows.map((r) => [r.snapshot_date, r.pooled_ids, r.records]);
    // Night 3: b.test has no file; a.test and tvdev.test (OWNERDOMAIN www.a.test) are one owner, a.test.
    expect(series).toEqual([
      ['2026-11-20', 1, 3],
      ['2026-11-21', 1, 3],
    ]);
    expect(figure('pooling.worst').rows).toEqual([]);
    const r = await buildReport({ roots: [out], outDir: path.join(tempDir(), 'n2'), to: '2026-11-21' });
    const worst = (JSON.parse(readFileSync(r.json, 'utf8')) as ReportJson).sections.find((s) => s.key === 'pooling')!.figures[0]!.rows;
    expect(worst).toEqual([
      { ad_system_domain: 'adx.test', seller_account_id: '1', seller_name: 'Alpha', seller_domain: 'a.test', sites: 3, owners: 2, owners_matching_seller_domain: 1, sample_owners: ['a.test', 'b.test'] },
    ]);
    // The owners as written would pool seller 1 on night 3 too ('a.test' and 'www.a.test').
    const db = await openSnapshotDb(out);
    try {
      // The series came from the derived night summaries written at commit; the views give the same rows.
      expect(report.derived_nights).toEqual(NIGHTS.map((n) => n.date));
      for (const stmt of report.setup_sql) await db.rows(stmt);
      await db.rows(`CREATE OR REPLACE MACRO report_viewed(d) AS true`);
      await db.rows(`DELETE FROM report_night_summary`);
      const viewed = JSON.parse(JSON.stringify((await db.connection.runAndReadAll(figure('pooling.over_time').sql)).convertRowObjects(cellConverter))) as unknown;
      expect(viewed).toEqual(figure('pooling.over_time').rows);
      const raw = await db.rows(`SELECT list_sort(list(DISTINCT owner_domain)) AS owners FROM seller_match
        WHERE snapshot_date = DATE '2026-11-22' AND relationship = 'DIRECT' AND ad_system_domain = 'adx.test' AND seller_account_id = '1'`);
      expect(raw).toEqual([{ owners: ['a.test', 'www.a.test'] }]);
    } finally {
      db.close();
    }
    // The reduction the report loads (setup_sql) from the file beside report.json.
    const csv = readFileSync(path.join(reportDir, OWNER_CSV), 'utf8');
    expect(csv.split('\n')[0]).toBe('owner,owner_domain');
    expect(csv).toContain('\nwww.a.test,a.test\n');
    expect(report.setup_sql.some((q) => q.includes(path.join(reportDir, OWNER_CSV)))).toBe(true);
    expect(['www.x.com', 'https://News.X.co.uk:443/path', 'X.COM.', 'user.github.io', 'mgr.test', '192.0.2.1', 'not a domain'].map(registrableOwner)).toEqual([
      'x.com',
      'x.co.uk',
      'x.com',
      'user.github.io',
      'mgr.test',
      '192.0.2.1',
      'not a domain',
    ]);
  });

  it('6. robots.txt: GPTBot blocked by name on a.test, everyone through * on b.test, part of c.test, d.test absent', async () => {
    const rows = figure('robots.agents').rows;
    const gpt = rows.find((r) => r.user_agent === 'GPTBot')!;
    const google = rows.find((r) => r.user_agent === 'Googlebot')!;
    // Listed sites: a, b, c and d (its robots.txt answers 404: absent, none).
    expect(gpt).toMatchObject({ sites: 4, share_full: 0.5, share_partial: 0.25, share_none: 0.25, share_full_by_name: 0.25, share_full_through_star: 0.25 });
    expect(gpt).toMatchObject({ share_partial_by_name: 0, share_partial_through_star: 0.25, share_unreachable: 0, share_absent: 0.25 });
    expect(google).toMatchObject({ sites: 4, share_full: 0.25, share_partial: 0.25, share_none: 0.5, share_full_by_name: 0, share_full_through_star: 0.25 });
    expect(rows[0]!.user_agent).toBe('GPTBot');
    expect(pick('robots.access', ['user_agent', 'blocked', 'via', 'sites', 'share']).filter((r) => r.user_agent === 'GPTBot')).toEqual([
      { user_agent: 'GPTBot', blocked: 'full', via: 'global_group', sites: 1, share: 0.25 },
      { user_agent: 'GPTBot', blocked: 'full', via: 'own_group', sites: 1, share: 0.25 },
      { user_agent: 'GPTBot', blocked: 'partial', via: 'global_group', sites: 1, share: 0.25 },
      { user_agent: 'GPTBot', blocked: 'none', via: 'absent', sites: 1, share: 0.25 },
    ]);
    expect(gpt).toMatchObject({ share_unknown: 0 });
    // By purpose, the four levels apart, against each site's answers to the purpose's agents.
    const db0 = await openSnapshotDb(out);
    try {
      const want = await db0.rows(`
        WITH per_site AS (
          SELECT purpose, host, count(*) AS agents, bool_or(blocked = 'full') AS any_full,
                 CASE WHEN bool_or(blocked = 'unknown') THEN 'unknown' WHEN bool_and(blocked = 'full') THEN 'full' WHEN bool_or(blocked = 'full') THEN 'some_full'
                      WHEN bool_and(blocked = 'none') THEN 'none' ELSE 'partial' END AS level
          FROM agent_access WHERE snapshot_date = DATE '2026-11-22' GROUP BY ALL)
        SELECT purpose, level, count(*) / (SELECT count(DISTINCT host) FROM per_site) AS share FROM per_site GROUP BY ALL`);
      const got = figure('robots.purposes').rows;
      expect(got.length).toBe(5 * new Set(want.map((w) => w.purpose)).size);
      for (const g of got) {
        const w = want.find((x) => x.purpose === g.purpose && x.level === g.level);
        expect(Number(g.share), `${g.purpose} ${g.level}`).toBeCloseTo(Number(w?.share ?? 0), 12);
      }
      expect(got.some((g) => g.level === 'partial' && Number(g.share) > 0)).toBe(true);
    } finally {
      db0.close();
    }
    expect(pick('robots.agents_over_time', ['snapshot_date', 'user_agent', 'sites', 'share_full', 'share_partial']).slice(0, 3)).toEqual(
      NIGHTS.map((n) => ({ snapshot_date: n.date, user_agent: 'GPTBot', sites: 4, share_full: 0.5, share_partial: 0.25 })),
    );
    // Every agent and night, against the shares counted over the product (view agent_access).
    const db = await openSnapshotDb(out);
    try {
      const want = await db.rows(`SELECT strftime(snapshot_date, '%Y-%m-%d') AS snapshot_date, user_agent, count(*) AS sites,
          avg((blocked = 'full')::INT) AS share_full, avg((blocked = 'partial')::INT) AS share_partial,
          avg((blocked = 'full' AND via = 'own_group')::INT) AS share_full_by_name, avg((blocked = 'full' AND via = 'global_group')::INT) AS share_full_through_star,
          avg((blocked = 'partial' AND via = 'own_group')::INT) AS share_partial_by_name, avg((blocked = 'partial' AND via = 'global_group')::INT) AS share_partial_through_star
        FROM agent_access GROUP BY ALL ORDER BY 1, 2`);
      expect(want.length).toBeGreaterThan(100 * NIGHTS.length);
      const cols = ['sites', 'share_full', 'share_partial', 'share_full_by_name', 'share_full_through_star', 'share_partial_by_name', 'share_partial_through_star'];
      const got = new Map(figure('robots.agents_over_time').rows.map((r) => [`${r.snapshot_date} ${r.user_agent}`, r]));
      expect(got.size).toBe(want.length);
      for (const w of want) {
        const g = got.get(`${w.snapshot_date} ${w.user_agent}`)!;
        for (const c of cols) expect(Number(g[c]), `${w.snapshot_date} ${w.user_agent} ${c}`).toBeCloseTo(Number(w[c]), 12);
        if (w.snapshot_date === '2026-11-22') {
          const latest = rows.find((r) => r.user_agent === w.user_agent)!;
          for (const c of cols) expect(Number(latest[c]), `${w.user_agent} ${c}`).toBeCloseTo(Number(w[c]), 12);
        }
      }
    } finally {
      db.close();
    }
  });

  it('7. changes per night: records and sellers added and removed, sites gaining and losing ads.txt, and which', () => {
    expect(pick('changes.per_night', ['snapshot_date', 'records_added', 'records_removed', 'sellers_added', 'sellers_removed', 'sites_gained_ads_txt', 'sites_lost_ads_txt'])).toEqual([
      // Night 2: a.test adds adx 2; d.test gains its file (ssp 10).
      { snapshot_date: '2026-11-21', records_added: 2, records_removed: 0, sellers_added: 0, sellers_removed: 0, sites_gained_ads_txt: 1, sites_lost_ads_txt: 0 },
      // Night 3: b.test loses both records and its file; adx.test drops seller 2 and adds 3.
      { snapshot_date: '2026-11-22', records_added: 0, records_removed: 2, sellers_added: 1, sellers_removed: 1, sites_gained_ads_txt: 0, sites_lost_ads_txt: 1 },
    ]);
    expect(pick('changes.ad_systems', ['ad_system_domain', 'added', 'removed', 'net', 'side'])).toEqual([{ ad_system_domain: 'adx.test', added: 0, removed: 2, net: -2, side: 'lost' }]);
    expect(pick('changes.sites', ['snapshot_date', 'change', 'site', 'rank', 'previous_status', 'status', 'previous_date'])).toEqual([
      { snapshot_date: '2026-11-22', change: 'lost', site: 'b.test', rank: 2, previous_status: 'ok', status: 'not_found', previous_date: '2026-11-21' },
      { snapshot_date: '2026-11-21', change: 'gained', site: 'd.test', rank: 4, previous_status: 'not_found', status: 'ok', previous_date: '2026-11-20' },
    ]);
    // Gained minus lost is the night's change of section 1's declaring count (the same sites are listed every night).
    const served = new Map<string, number>();
    for (const r of figure('adoption.ads_txt_by_rank').rows) served.set(String(r.snapshot_date), (served.get(String(r.snapshot_date)) ?? 0) + Number(r.declaring));
    for (const r of figure('changes.per_night').rows) {
      const prev = NIGHTS[NIGHTS.findIndex((n) => n.date === r.snapshot_date) - 1]!.date;
      expect(Number(r.sites_gained_ads_txt) - Number(r.sites_lost_ads_txt), String(r.snapshot_date)).toBe(served.get(String(r.snapshot_date))! - served.get(prev)!);
    }
  });

  it('8. the publishers the ad systems reach through intermediaries, latest night, as the documented query counts them', async () => {
    // Depth 0: adx.test (1 PUBLISHER a.test, 3 INTERMEDIARY three.test) and ssp.test (10 INTERMEDIARY, 11 BOTH ssp.test).
    // Depth 1, from adx.test through three.test: 30 PUBLISHER pub30.test, 31 BOTH adx.test (a cycle: not followed again).
    // Publishers (PUBLISHER or BOTH): adx.test reaches a.test at 0, pub30.test and adx.test at 1; ssp.test reaches ssp.test at 0.
    expect(pick('sellers.reach_by_depth', ['depth', 'ad_systems', 'files', 'entries', 'publishers'])).toEqual([
      { depth: 0, ad_systems: 2, files: 2, entries: 4, publishers: 2 },
      { depth: 1, ad_systems: 1, files: 1, entries: 2, publishers: 2 },
    ]);
    // docs/guide/analysing.md's query, per ad system, summed per depth.
    const guide = readFileSync(path.join(import.meta.dirname, '..', 'docs', 'guide', 'analysing.md'), 'utf8');
    const query = /-- which publishers an ad system reaches, through how many intermediaries\n([\s\S]*?;)\n/.exec(guide)![1]!;
    expect(query).toContain("ad_system_domain = 'google.com'");
    const db = await openSnapshotDb(out);
    const perDepth = new Map<number, number>();
    try {
      for (const ad of ['adx.test', 'ssp.test']) {
        const rows = await db.rows(query.replace("'google.com'", `'${ad}'`));
        expect(rows.length, ad).toBeGreaterThan(0);
        for (const r of rows) perDepth.set(Number(r.depth), (perDepth.get(Number(r.depth)) ?? 0) + Number(r.publishers));
      }
    } finally {
      db.close();
    }
    expect([...perDepth]).toEqual(figure('sellers.reach_by_depth').rows.map((r) => [r.depth, r.publishers]));
  });

  it('8. sellers.json types and headers, latest night', () => {
    expect(pick('sellers.types', ['seller_type', 'sellers'])).toEqual([
      { seller_type: 'BOTH', sellers: 2 },
      { seller_type: 'INTERMEDIARY', sellers: 2 },
      { seller_type: 'PUBLISHER', sellers: 2 },
    ]);
    expect(figure('sellers.headers').rows).toEqual([{ files: 3, version: 3, contact_email: 3, contact_address: 0, identifiers: 0, ext: 0 }]);
  });

  it('8. sellers.json availability: ad systems and intermediaries apart, latest night', async () => {
    const db = await openSnapshotDb(out);
    try {
      const want = await db.rows(`SELECT CASE via WHEN 'intermediary' THEN 'intermediary' ELSE 'ad_system' END AS role, status, count(*) AS files
        FROM files WHERE file_kind = 'sellers.json' AND snapshot_date = DATE '2026-11-22' GROUP BY ALL ORDER BY 1, 3 DESC, 2`);
      expect(pick('sellers.availability', ['role', 'status', 'files'])).toEqual(want);
      expect(new Set(want.map((w) => w.role))).toEqual(new Set(['ad_system', 'intermediary']));
      for (const role of ['ad_system', 'intermediary']) {
        const shares = figure('sellers.availability').rows.filter((r) => r.role === role).reduce((a, r) => a + Number(r.share), 0);
        expect(shares).toBeCloseTo(1, 12);
      }
    } finally {
      db.close();
    }
  });

  it('9. data quality: outcomes and provenance agree with the files table', async () => {
    const db = await openSnapshotDb(out);
    try {
      const want = await db.rows(`SELECT file_kind, status, count(*)::INTEGER AS files FROM files WHERE snapshot_date = DATE '2026-11-22' GROUP BY 1, 2 ORDER BY 1, 3 DESC, 2`);
      expect(figure('quality.file_status').rows).toEqual(want);
      const obtained = await db.rows(`SELECT count(*)::INTEGER AS n FROM files`);
      expect(figure('quality.obtained').rows.reduce((a, r) => a + Number(r.files), 0)).toBe(obtained[0]!.n);
    } finally {
      db.close();
    }
  });

  it('every figure is reproduced, row for row and value for value, by its SQL after the setup statements, as adsnap sql runs it', async () => {
    // A connection of its own, as an analyst's: report.json's setup statements and a figure's SQL give its rows.
    const db = await openSnapshotDb(out);
    try {
      for (const stmt of report.setup_sql) await db.rows(stmt);
      for (const f of report.sections.flatMap((s) => s.figures)) {
        if (f.note === 'Needs two or more nights.') continue;
        const reader = await db.connection.runAndReadAll(f.sql);
        const again = JSON.parse(JSON.stringify(reader.convertRowObjects(cellConverter))) as unknown;
        expect(again, f.key).toEqual(f.rows);
      }
    } finally {
      db.close();
    }
    const cli = await runCli(['sql', out, '--format', 'json', '-c', [...report.setup_sql, figure('changes.per_night').sql].join(';\n')]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout)).toEqual(figure('changes.per_night').rows);
    const pooled = await runCli(['sql', out, '--format', 'json', '-c', [...report.setup_sql, figure('pooling.over_time').sql].join(';\n')]);
    expect(pooled.code, pooled.stderr).toBe(0);
    expect(JSON.parse(pooled.stdout)).toEqual(figure('pooling.over_time').rows);
  });

  it('the consistency series, read from the derived tables, agrees with independent SQL over the base tables', async () => {
    // Not the views, not the derived tables: per night, the root records (a listed site's own ads.txt, a text body, valid or
    // not: the headline's population, docs/reference/figures.md; the placeholder left out); those whose ad system's sellers.json was read and valid (checkable); of those, the
    // ones whose seller id it does not list, ids compared trimmed and case-insensitively (docs/reference/figures.md).
    expect(report.derived_nights).toEqual(NIGHTS.map((n) => n.date));
    const db = await openSnapshotDb(out);
    try {
      const want = await db.rows(`SELECT r.snapshot_date::VARCHAR AS snapshot_date, count(*) AS records,
          count(*) FILTER (WHERE sf.valid) AS checkable,
          count(*) FILTER (WHERE sf.valid AND NOT EXISTS (
            SELECT 1 FROM sellers s WHERE s.snapshot_date = r.snapshot_date AND s.ad_system_domain = r.ad_system_domain
              AND lower(trim(s.seller_id)) = lower(trim(r.seller_account_id)))) AS missing
        FROM ads_records r
        JOIN files f ON f.snapshot_date = r.snapshot_date AND f.subject = r.subject AND f.file_kind = r.file_kind AND f.status <> 'html'
        JOIN targets t ON t.snapshot_date = r.snapshot_date AND t.target = r.subject AND t.target_kind = 'domain'
        LEFT JOIN files sf ON sf.snapshot_date = r.snapshot_date AND sf.subject = r.ad_system_domain AND sf.file_kind = 'sellers.json'
        WHERE r.file_kind = 'ads.txt' AND r.ad_system_domain <> 'placeholder.example.com'
        GROUP BY 1 ORDER BY 1`);
      expect(pick('consistency.over_time', ['snapshot_date', 'records', 'checkable', 'missing'])).toEqual(want);
      // Night 1 by hand: a.test 2, b.test 2 (c.test's placeholder, dev.test's and tvdev.test's app records are not root records); b.test's seller 77 is missing.
      expect(want[0]).toEqual({ snapshot_date: '2026-11-20', records: 4, checkable: 4, missing: 1 });
    } finally {
      db.close();
    }
  });
});

describe('the page', () => {
  it('says the web was not the public one when the manifests name address-guard exemptions (--connect-to here)', () => {
    expect(report.not_public_web.map((n) => n.night)).toEqual(NIGHTS.map((n) => n.date));
    for (const n of report.not_public_web) expect(n.reasons.every((r) => r.startsWith('--connect-to '))).toBe(true);
    const html = readFileSync(path.join(reportDir, 'index.html'), 'utf8');
    expect(html).toMatch(/<p class="banner" role="note">Not the public web\. All 3 nights were crawled with the address guard&#39;s exemptions \(--connect-to /);
  });

  it('is one file with inline SVG charts, no script and nothing fetched; each chart with a title and its table', () => {
    const html = readFileSync(path.join(reportDir, 'index.html'), 'utf8');
    expect(html).not.toMatch(/<script|<link\b|<img\b|@import|url\(/i);
    expect(html).not.toMatch(/\bsrc=/i);
    const figures = [...html.matchAll(/<figure id="([^"]+)"[\s\S]*?<\/figure>/g)];
    expect(figures.length).toBe(SECTIONS.flatMap((s) => s.figures).length);
    const charted: string[] = [];
    for (const [block, key] of figures) {
      expect(block, key).toMatch(/<h3>[^<]+<\/h3>/);
      if (block.includes('<svg')) {
        charted.push(key!);
        expect(block, key).toMatch(/<svg[^>]* role="img" aria-label="[^"]+"/);
        expect(block, key).toContain('<table>');
      }
    }
    // A chart for exactly the figures that define one and have rows (three nights: lines are drawn too), in page order.
    const withChart = SECTIONS.flatMap((s) => s.figures).filter((f) => f.chart !== undefined && figure(f.key).rows.length > 0);
    expect(charted).toEqual(withChart.map((f) => f.key));
    expect(charted.length).toBeGreaterThanOrEqual(14);
    // The AI-crawler chart draws the crawlers a robots.txt names (GPTBot, on a.test), by name and through '*' apart, and says what it left out.
    const agents = figures.find(([, key]) => key === 'robots.agents')![0];
    expect(agents).toMatch(/<text[^>]*>by name<\/text>/);
    expect(agents).toMatch(/<text[^>]*>GPTBot<\/text>/);
    expect(agents).not.toMatch(/<text[^>]*>CCBot<\/text>/);
    expect(agents).toMatch(/The chart leaves out \d+ of \d+ crawlers: no site&#39;s robots\.txt names them/);
  });
});

describe('what is missing is said', () => {
  it('one night: a note, and the figures over time and the changes say they need two nights', async () => {
    const dir = path.join(tempDir(), 'one');
    const r = await buildReport({ roots: [out], outDir: dir, from: '2026-11-21', to: '2026-11-21' });
    expect(r.nights).toEqual(['2026-11-21']);
    const j = JSON.parse(readFileSync(r.json, 'utf8')) as ReportJson;
    expect(j.missing.join(' ')).toMatch(/One night \(2026-11-21\)/);
    const changes = j.sections.find((s) => s.key === 'changes')!.figures;
    const needs = 'One night: this figure compares nights, and needs two or more. Crawl again on another day (adsnap crawl, same --out) and run the report again.';
    expect(changes.map((f) => [f.note, f.rows.length])).toEqual([
      [needs, 0],
      [needs, 0],
      [needs, 0],
    ]);
    // Their CSVs are a header line, not an empty file: the columns the figure's SQL gives.
    expect(readFileSync(path.join(dir, 'changes.per_night.csv'), 'utf8')).toBe(
      'snapshot_date,records_added,records_removed,sellers_added,sellers_removed,sites_gained_ads_txt,sites_lost_ads_txt\r\n',
    );
    for (const f of changes) expect(readFileSync(path.join(dir, `${f.key}.csv`), 'utf8'), f.key).toMatch(/^[a-z_]+(,[a-z_]+)+\r\n$/);
    const html = readFileSync(r.index, 'utf8');
    expect(html).toContain('class="missing"');
    expect(html).toContain('One night: the line over time needs two or more');
    // Lines and stacked bars over time are a dot or one bar on one night: a note instead.
    const overTime = j.sections.flatMap((s) => s.figures).filter((f) => ['ad_systems.relationship', 'quality.obtained'].includes(f.key));
    expect(overTime.map((f) => [f.key, f.note, f.rows.length > 0])).toEqual([
      ['ad_systems.relationship', 'One night: the line over time needs two or more nights (the table has the figures).', true],
      ['quality.obtained', 'One night: the bars over time need two or more nights (the table has the figures).', true],
    ]);
    for (const key of ['ad_systems.relationship', 'quality.obtained']) expect(html.match(new RegExp(`<figure id="${key.replace('.', '\\.')}"[\\s\\S]*?</figure>`))![0], key).not.toContain('<svg');
  });

  it('a window with no night, a root with no complete night yet, and a CLI error for a root that does not exist and for bad dates', async () => {
    const dir = path.join(tempDir(), 'none');
    const r = await buildReport({ roots: [out], outDir: dir, from: '2027-01-01' });
    expect(r.nights).toEqual([]);
    const j = JSON.parse(readFileSync(r.json, 'utf8')) as ReportJson;
    expect(j.missing).toEqual(['No night between 2027-01-01 and the last: the roots hold 2026-11-20 to 2026-11-22.']);
    // No CSV is empty: a figure whose columns DuckDB can give has its header line, one that cannot be prepared without a night has no file.
    for (const f of j.sections.flatMap((x) => x.figures)) {
      const file = path.join(dir, `${f.key}.csv`);
      if (f.columns.length > 0) expect(readFileSync(file, 'utf8'), f.key).toBe(`${f.columns.join(',')}\r\n`);
      else expect(existsSync(file), f.key).toBe(false);
    }
    expect(readFileSync(r.index, 'utf8')).not.toContain('<svg');
    const bad = await runCli(['report', out, '--out', dir, '--from', '2026-13-01']);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining('--from must be a calendar date')]);
    // A root adsnap has started to write with no complete night yet (a first night still running or failed): a page that says so.
    const emptyRoot = tempDir();
    mkdirSync(path.join(emptyRoot, '_staging'));
    const emptyOut = path.join(tempDir(), 'empty');
    const noRuns = await runCli(['report', emptyRoot, '--out', emptyOut]);
    expect([noRuns.code, noRuns.stderr]).toEqual([0, '']);
    expect(noRuns.stdout).toMatch(/^adsnap report: no night, \d+ figures, 0 charts in /);
    const ej = JSON.parse(readFileSync(path.join(emptyOut, 'report.json'), 'utf8')) as ReportJson;
    expect([ej.window.nights, ej.missing]).toEqual([[], ['No complete night in the snapshot roots yet (no run manifest with files rows): nothing to report.']]);
    const emptyHtml = readFileSync(path.join(emptyOut, 'index.html'), 'utf8');
    expect(emptyHtml).toContain('No complete night in the snapshot roots yet');
    expect(emptyHtml).not.toContain('<svg');
    // Beside a root with nights, the empty one adds nothing and hides nothing.
    const both = await buildReport({ roots: [emptyRoot, out], outDir: path.join(tempDir(), 'both') });
    expect(both.nights).toEqual(['2026-11-20', '2026-11-21', '2026-11-22']);
    // A path that is no snapshot root: exit 2 before --out is made (more in snapshot-roots.test.ts).
    const noRoot = await runCli(['report', path.join(emptyRoot, 'typo'), '--out', path.join(dir, 'not-made')]);
    expect([noRoot.code, noRoot.stderr]).toEqual([2, `adsnap report: ${path.join(emptyRoot, 'typo')}: no such directory (a snapshot root is the --out directory of \`adsnap crawl\`)\n`]);
    expect(existsSync(path.join(dir, 'not-made'))).toBe(false);
    const buckets = await runCli(['report', out, '--out', dir, '--rank-buckets', '10,5']);
    expect([buckets.code, buckets.stderr]).toEqual([2, expect.stringContaining('ascending')]);
    const memory = await runCli(['report', out, '--out', dir], { env: { ADSNAP_REPORT_MEMORY: 'lots' } });
    expect([memory.code, memory.stderr]).toEqual([1, "adsnap report: ADSNAP_REPORT_MEMORY must be a size such as 768MB or 2GB, got 'lots'\n"]);
  });
});

/**
 * The page in a real browser: Debian's chromium, headless, driven by playwright-core (no browser
 * download). `.ci/run` installs chromium when it is missing; elsewhere the test says why it skips.
 */
const CHROMIUM = process.env.ADSNAP_CHROMIUM ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
const browserTitle = haveChromium
  ? 'in headless chromium'
  : `in headless chromium — SKIPPED: no browser at ${CHROMIUM} (install Debian's chromium, as .ci/run does, or set ADSNAP_CHROMIUM)`;

describe.skipIf(!haveChromium)(browserTitle, () => {
  it('loads offline without console errors or requests, every chart has marks, shares read as percentages, no table is cut at the right, the screenshot is not blank, and a phone needs no sideways scroll', async () => {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    try {
      const context = await browser.newContext({ offline: true, viewport: { width: 1100, height: 900 } });
      const page = await context.newPage();
      const errors: string[] = [];
      const requests: string[] = [];
      page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
      page.on('pageerror', (e) => void errors.push(String(e)));
      page.on('request', (r) => void requests.push(r.url()));
      const url = 'file://' + path.join(reportDir, 'index.html');
      await page.goto(url, { waitUntil: 'load' });
      expect(errors).toEqual([]);
      expect(requests).toEqual([url]);

      // The callbacks run in the page: its DOM is reached through globalThis (the repo compiles without DOM types).
      type El = { closest(s: string): { id: string }; querySelectorAll(s: string): { length: number }; getBoundingClientRect(): { width: number; height: number } };
      const charts = await page.evaluate(() => {
        const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): Iterable<El> } }).document;
        return [...doc.querySelectorAll('figure svg')].map((svg) => ({
          key: svg.closest('figure').id,
          marks: svg.querySelectorAll('g[class*="mark-"] path, g[class*="mark-"] rect, g[class*="mark-"] line').length,
          width: svg.getBoundingClientRect().width,
          height: svg.getBoundingClientRect().height,
        }));
      });
      expect(charts.length).toBeGreaterThanOrEqual(14);
      for (const c of charts) {
        expect(c.marks, c.key).toBeGreaterThan(0);
        expect(c.width, c.key).toBeGreaterThan(200);
        expect(c.height, c.key).toBeGreaterThan(50);
      }

      // Shares read as percentages, with their n where the figure names it: never a fraction such as 0.3952.
      const shares = await page.evaluate(() => {
        type Cell = { textContent: string | null; closest(s: string): { id: string } };
        const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): Iterable<{ querySelectorAll(s: string): Iterable<Cell> } & Cell> } }).document;
        const out: { key: string; column: string; text: string }[] = [];
        for (const table of doc.querySelectorAll('figure table')) {
          const heads = [...table.querySelectorAll('thead th')].map((th) => th.textContent ?? '');
          for (const row of table.querySelectorAll('tbody tr') as Iterable<Cell & { querySelectorAll(s: string): Iterable<Cell> }>) {
            [...row.querySelectorAll('td')].forEach((td, i) => {
              const column = heads[i] ?? '';
              if (column === 'share' || column.endsWith('_share') || column.startsWith('share_')) out.push({ key: table.closest('figure').id, column, text: td.textContent ?? '' });
            });
          }
        }
        return out;
      });
      expect(shares.length).toBeGreaterThan(50);
      for (const c of shares) if (c.text !== '') expect(c.text, `${c.key} ${c.column}`).toMatch(/^(\d{1,3}\.\d%|0\.0*[1-9]\d?%|>99\.9%)( \([\d,]+ of [\d,]+\))?$/);
      const adoption = figure('adoption.ads_txt_by_rank').rows[0]!;
      const declaring = shares.find((c) => c.key === 'adoption.ads_txt_by_rank' && c.column === 'declaring_share')!;
      expect(declaring.text).toBe(`${percentText(Number(adoption.declaring) / Number(adoption.sites))} (${adoption.declaring} of ${adoption.sites})`);

      // No table is cut at the right: each table box lies within the window, and a table wider than its box scrolls
      // inside it (and takes keyboard focus to do so). At least one table here is wider than the text column.
      const tablesFit = async () =>
        page.evaluate(() => {
          type Box = { scrollWidth: number; clientWidth: number; getAttribute(n: string): string | null; getBoundingClientRect(): { left: number; right: number; width: number }; closest(s: string): { id: string } };
          const g = globalThis as unknown as { document: { documentElement: { clientWidth: number }; querySelectorAll(s: string): Iterable<Box>; querySelector(s: string): Box }; getComputedStyle(b: Box): { overflowX: string } };
          const view = g.document.documentElement.clientWidth;
          const column = g.document.querySelector('main').getBoundingClientRect().width;
          return {
            view,
            column,
            boxes: [...g.document.querySelectorAll('figure .scroll')].map((b) => ({
              key: b.closest('figure').id,
              left: b.getBoundingClientRect().left,
              right: b.getBoundingClientRect().right,
              width: b.getBoundingClientRect().width,
              overflowing: b.scrollWidth > b.clientWidth + 1,
              overflowX: g.getComputedStyle(b).overflowX,
              tabindex: b.getAttribute('tabindex'),
            })),
          };
        });
      const wide = await tablesFit();
      expect(wide.boxes.length).toBeGreaterThan(20);
      for (const b of wide.boxes) {
        expect(b.left, b.key).toBeGreaterThanOrEqual(0);
        expect(b.right, b.key).toBeLessThanOrEqual(wide.view);
        if (b.overflowing) expect([b.key, b.overflowX, b.tabindex]).toEqual([b.key, 'auto', '0']);
      }
      expect(wide.boxes.some((b) => b.width > wide.column + 1)).toBe(true);

      // Not blank: the browser itself decodes the screenshot and counts the pixels that are not white.
      const shot = (await page.screenshot({ fullPage: false })).toString('base64');
      const inked = await page.evaluate(async (b64) => {
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        const g = globalThis as any;
        const img = new g.Image();
        img.src = `data:image/png;base64,${b64}`;
        await img.decode();
        const canvas = g.document.createElement('canvas');
        canvas.width = img.width;
        canvas.height = img.height;
        const ctx = canvas.getContext('2d');
        ctx.drawImage(img, 0, 0);
        const px: Uint8ClampedArray = ctx.getImageData(0, 0, img.width, img.height).data;
        let ink = 0;
        for (let i = 0; i < px.length; i += 4) if (px[i]! < 235 || px[i + 1]! < 235 || px[i + 2]! < 235) ink++;
        return ink / (px.length / 4);
      }, shot);
      expect(inked).toBeGreaterThan(0.02);

      await page.setViewportSize({ width: 390, height: 844 });
      const overflow = await page.evaluate(() => {
        const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
        return root.scrollWidth - root.clientWidth;
      });
      expect(overflow).toBeLessThanOrEqual(1);
      const narrow = await tablesFit();
      for (const b of narrow.boxes) {
        expect([b.key, b.left >= 0, b.right <= narrow.view]).toEqual([b.key, true, true]);
        if (b.overflowing) expect([b.key, b.overflowX, b.tabindex]).toEqual([b.key, 'auto', '0']);
      }
      await context.close();
    } finally {
      await browser.close();
    }
  }, 60_000);
});
