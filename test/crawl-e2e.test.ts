import { DUCKDB_TYPE } from './helpers/snapshot-rows.js';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSnapshotDb, summarizeSnapshot } from '../src/sql/snapshot-db.js';
import { tables } from '../schemas/tables.js';
import { startSimweb, type Simweb } from '../src/simweb/index.js';
import { rootDomain } from '../src/util/domain.js';
import { repoRoot } from './helpers/corpus.js';
import { runCli } from './helpers/run-cli.js';
import { useTempDirs } from './helpers/tmp.js';

const tempDir = useTempDirs('e2e');

/**
 * End to end: the real `adsnap crawl` binary against the hand-written fixture hosts of the
 * simulated web (data-samples/simweb-fixtures, documented in its README), then every table read
 * back with DuckDB through the shipped views.
 */
const fixtures = path.join(repoRoot, 'data-samples', 'simweb-fixtures');
const DATE = '2026-11-22';
let web: Simweb;
let out: string;
let db: Awaited<ReturnType<typeof openSnapshotDb>>;
let stdout: string;


beforeAll(async () => {
  web = await startSimweb({ hosts: 1, fixturesDir: fixtures, hostile: false });
  out = tempDir();
  const r = await runCli([
    'crawl',
    '--domains', path.join(fixtures, 'domains.txt'),
    '--apps', path.join(fixtures, 'apps.txt'),
    '--out', out,
    '--snapshot-date', DATE,
    '--progress', 'none',
    ...web.connectArgs,
  ]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  stdout = r.stdout;
  db = await openSnapshotDb(out);
}, 120_000);

afterAll(async () => {
  db?.close();
  await web?.close();
});

const q = (sql: string) => db.rows(sql);

describe('adsnap crawl end to end (fixture hosts)', () => {
  it('contract §2: Hive-partitioned parts for every table and a run manifest', async () => {
    for (const name of Object.keys(tables)) {
      const parts = await readdir(path.join(out, name, `snapshot_date=${DATE}`));
      expect(parts.filter((p) => /^part-\d{5}\.parquet$/.test(p)).length, name).toBeGreaterThan(0);
      expect(parts.filter((p) => !p.endsWith('.parquet')), `${name} has leftovers`).toEqual([]);
    }
    const runs = await readdir(path.join(out, '_runs'));
    expect(runs).toHaveLength(1);
    const manifest = JSON.parse(await readFile(path.join(out, '_runs', runs[0]!), 'utf8'));
    expect(manifest.snapshot_date).toBe(DATE);
    expect(manifest.tables.files.rows).toBeGreaterThan(20);
    expect(stdout).toContain(`snapshot ${DATE} written`);
  });

  it('every table reads back with the schema types, and snapshot_date as a partition', async () => {
    for (const [name, schema] of Object.entries(tables)) {
      const cols = await q(`DESCRIBE ${name}`);
      const types = Object.fromEntries(cols.map((c) => [c.column_name, c.column_type]));
      for (const col of schema.columns) expect(types[col.name], `${name}.${col.name}`).toBe(DUCKDB_TYPE[col.type]);
      expect(types.snapshot_date, name).toBe('DATE');
    }
  });

  it('files: each fixture host is recorded as its README says (simweb describe().expect)', async () => {
    const rows = await q(`SELECT subject, file_kind, status, records FROM files`);
    const got = new Map(rows.map((r) => [`${r.subject} ${r.file_kind}`, r]));
    let checked = 0;
    for (const host of web.fixtureHosts()) {
      const spec = web.describe(host);
      for (const [kind, want] of Object.entries(spec.expect)) {
        // A serving host (www.example.test) is not a subject: its file is recorded under the root.
        const row = got.get(`${host} ${kind}`) ?? got.get(`${rootDomain(host)} ${kind}`);
        expect(row, `${host} ${kind}`).toBeDefined();
        expect(row!.status, `${host} ${kind}`).toBe(want!.status);
        if (want!.records !== undefined) expect(row!.records, `${host} ${kind} records`).toBe(want!.records);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('ads.txt 1.1 §3.1: redirects inside the root, one hop out, and not two', async () => {
    const rows = await q(`SELECT subject, status, url, valid FROM files WHERE file_kind = 'ads.txt' AND subject IN ('www-canonical.test', 'redirect-out-once.test', 'redirect-out-twice.test', 'http-only.test') ORDER BY subject`);
    expect(rows).toEqual([
      { subject: 'http-only.test', status: 'ok', url: 'http://http-only.test/ads.txt', valid: true },
      { subject: 'redirect-out-once.test', status: 'ok', url: 'https://ads-host-a.test/redirect-out-once.test/ads.txt', valid: true },
      { subject: 'redirect-out-twice.test', status: 'redirect_error', url: null, valid: false },
      { subject: 'www-canonical.test', status: 'ok', url: 'https://www.www-canonical.test/ads.txt', valid: true },
    ]);
    // The chain holds the redirects followed; the refused second hop out is where it stops.
    const [chain] = await q(`SELECT redirects, final_url, status_code, error FROM fetches WHERE url = 'https://redirect-out-twice.test/ads.txt'`);
    expect(chain).toEqual({
      redirects: ['https://ads-host-a.test/hop/redirect-out-twice.test'],
      final_url: 'https://ads-host-a.test/hop/redirect-out-twice.test',
      status_code: 302,
      error: 'redirect_scope',
    });
  });

  it('soft-404 keeps no records; a wrong Content-Type keeps its records but is not valid', async () => {
    const rows = await q(`SELECT f.subject, f.status, f.valid, f.content_type, (SELECT count(*) FROM ads_records r WHERE r.subject = f.subject) AS n FROM files f WHERE f.file_kind = 'ads.txt' AND f.subject IN ('soft404.test', 'wrong-type.test') ORDER BY 1`);
    expect(rows.map((r) => [r.subject, r.status, r.valid, r.n])).toEqual([
      ['soft404.test', 'html', false, 0],
      ['wrong-type.test', 'invalid_content_type', false, 2],
    ]);
    expect(String(rows[1]!.content_type)).toMatch(/^text\/html/);
  });

  it('hops: subdomain followed and ignored, partner followed once, no second hop, developer URL fallback', async () => {
    const rows = await q(`SELECT from_subject, kind, to_subject, outcome, reason FROM hops ORDER BY kind, from_subject, to_subject`);
    const app = 'https://play.google.com/store/apps/details?id=com.simfix.puzzle';
    expect(rows).toEqual([
      { from_subject: app, kind: 'developer_url', to_subject: 'games.appdev.test', outcome: 'followed', reason: null },
      { from_subject: app, kind: 'developer_url_parent', to_subject: 'appdev.test', outcome: 'followed', reason: null },
      { from_subject: 'partner-ctv.test', kind: 'inventorypartnerdomain', to_subject: 'partner-second.test', outcome: 'ignored', reason: 'second_hop' },
      { from_subject: 'pub-partner2.test', kind: 'inventorypartnerdomain', to_subject: 'partner-ctv.test', outcome: 'followed', reason: null },
      { from_subject: 'pub-referrals.test', kind: 'inventorypartnerdomain', to_subject: 'partner-ctv.test', outcome: 'followed', reason: null },
      { from_subject: 'news.pub-referrals.test', kind: 'subdomain', to_subject: 'deep.news.pub-referrals.test', outcome: 'ignored', reason: 'not_root_file' },
      { from_subject: 'pub-referrals.test', kind: 'subdomain', to_subject: 'news.other-root.test', outcome: 'ignored', reason: 'outside_root' },
      { from_subject: 'pub-referrals.test', kind: 'subdomain', to_subject: 'news.pub-referrals.test', outcome: 'followed', reason: null },
    ]);
    // A developer host's files say 'developer_url' however the first app reached it, so the
    // column cannot flip with the crawl's timing; the app's path is its hop above.
    const dev = await q(`SELECT subject, file_kind, via FROM files WHERE subject IN ('appdev.test', 'games.appdev.test') ORDER BY ALL`);
    expect(dev.length).toBeGreaterThan(0);
    for (const r of dev) expect([r.subject, r.file_kind, r.via]).toEqual([r.subject, r.file_kind, 'developer_url']);
    const fetched = await q(`SELECT host, count(*) AS n FROM fetches WHERE file_kind = 'ads.txt' GROUP BY host`);
    const byHost = Object.fromEntries(fetched.map((r) => [r.host, r.n]));
    expect(byHost['partner-ctv.test']).toBe(1); // named by two files, fetched once
    for (const never of ['partner-second.test', 'deep.news.pub-referrals.test', 'news.other-root.test', 'ads-host-b.test']) {
      expect(byHost[never], never).toBeUndefined();
    }
    const [sub] = await q(`SELECT via, status FROM files WHERE subject = 'news.pub-referrals.test' AND file_kind = 'ads.txt'`);
    expect(sub).toEqual({ via: 'subdomain', status: 'ok' });
  });

  it('robots.txt: verdicts per agent and path; ads.txt fetched where disallowed, with the verdict kept', async () => {
    const [adsnap] = await q(`SELECT allowed, policy FROM robots_verdicts WHERE host = 'robots-disallow.test' AND user_agent = 'adsnap' AND path = '/ads.txt'`);
    expect(adsnap).toEqual({ allowed: false, policy: 'rules' });
    const [file] = await q(`SELECT status, robots_allowed FROM files WHERE subject = 'robots-disallow.test' AND file_kind = 'ads.txt'`);
    expect(file).toEqual({ status: 'ok', robots_allowed: false });
    // RFC 9309 §2.3.1.4: a 5xx robots.txt means disallow all.
    const [err] = await q(`SELECT allowed, policy FROM robots_verdicts WHERE host = 'server-error.test' AND user_agent = 'Googlebot' AND path = '/'`);
    expect(err).toEqual({ allowed: false, policy: 'disallow_all' });
    const [n] = await q(`SELECT count(DISTINCT user_agent) AS agents, count(DISTINCT path) AS paths FROM robots_verdicts`);
    expect(n).toEqual({ agents: 16, paths: 3 });
  });

  it('apps and sellers.json: developer URL parent fallback, non-participating app, sellers rows', async () => {
    const apps = await q(`SELECT bundle_id, developer_url, subject, status FROM apps ORDER BY bundle_id`);
    expect(apps).toEqual([
      { bundle_id: 'com.simfix.offline', developer_url: null, subject: null, status: 'not_participating' },
      { bundle_id: 'com.simfix.puzzle', developer_url: 'https://games.appdev.test/puzzle', subject: 'appdev.test', status: 'ok' },
    ]);
    const [sellers] = await q(`SELECT count(*) AS n, count(*) FILTER (WHERE is_confidential) AS conf FROM sellers WHERE ad_system_domain = 'adsystem-one.test'`);
    expect(sellers).toEqual({ n: 6, conf: 1 });
    const placeholder = await q(`SELECT * FROM files WHERE subject = 'placeholder.example.com'`);
    expect(placeholder).toEqual([]); // the placeholder record names no real ad system
  });

  it('buyers.json of the fixtures\' ad systems: a valid file (adsystem-one.test), a cut one (openx.com), none (the others)', async () => {
    const rows = await q(`SELECT subject, via, status, valid, records FROM files WHERE file_kind = 'buyers.json' AND subject IN ('adsystem-one.test', 'openx.com', 'pubmatic.com') ORDER BY subject`);
    expect(rows).toEqual([
      { subject: 'adsystem-one.test', via: 'ad_system', status: 'ok', valid: true, records: 4 },
      { subject: 'openx.com', via: 'ad_system', status: 'invalid_json', valid: false, records: 1 },
      { subject: 'pubmatic.com', via: 'ad_system', status: 'not_found', valid: false, records: 0 },
    ]);
    // Asked only of ad systems named by a record (round 0), never of intermediaries.
    expect(await q(`SELECT count(*) AS n FROM files WHERE file_kind = 'buyers.json' AND subject IN ('partner-ctv.test', 'reseller-chain.test')`)).toEqual([{ n: 0 }]);
    expect(await q(`SELECT ad_system_domain AS a, publishes, buyers, buyer_types['AGENCY'] AS agency FROM ad_system_buyers WHERE ad_system_domain = 'adsystem-one.test'`)).toEqual([{ a: 'adsystem-one.test', publishes: true, buyers: 4, agency: 2 }]);
    expect(await q(`SELECT buyer_id FROM buyers WHERE ad_system_domain = 'openx.com'`)).toEqual([{ buyer_id: 'ox-1' }]);
  });

  it('sellers.json rounds: the ad system, then the intermediaries its file names, each once; PUBLISHER domains never asked', async () => {
    const rows = await q(`SELECT subject, via, status, records FROM files WHERE file_kind = 'sellers.json' AND subject LIKE '%.test' AND status = 'ok' ORDER BY subject`);
    expect(rows).toEqual([
      { subject: 'adsystem-one.test', via: 'ad_system', status: 'ok', records: 6 },
      { subject: 'partner-ctv.test', via: 'intermediary', status: 'ok', records: 3 },
      { subject: 'reseller-chain.test', via: 'intermediary', status: 'ok', records: 3 },
    ]);
    expect(await q(`SELECT url, count(*) AS n FROM fetches WHERE file_kind = 'sellers.json' GROUP BY url HAVING count(*) > 1`)).toEqual([]);
    expect(await q(`SELECT url FROM fetches WHERE host = 'publisher-only.test'`)).toEqual([]);
    const reach = await q(`SELECT via_domain, depth FROM seller_reach WHERE ad_system_domain = 'adsystem-one.test' GROUP BY ALL ORDER BY depth`);
    expect(reach).toEqual([
      { via_domain: 'adsystem-one.test', depth: 0 },
      { via_domain: 'partner-ctv.test', depth: 1 },
      { via_domain: 'reseller-chain.test', depth: 2 },
    ]);
    const manifest = JSON.parse(await readFile(path.join(out, '_runs', (await readdir(path.join(out, '_runs')))[0]!), 'utf8'));
    expect(manifest.sellers_rounds.limit_reached).toBeNull();
    expect(manifest.sellers_rounds.rounds.map((r: { round: number }) => r.round)).toEqual([0, 1, 2]);
  });

  it('views: authorized_sellers follows partner and developer-URL hops; adoption has one row per domain', async () => {
    const viaPartner = await q(`SELECT DISTINCT via_subject, via_kind FROM authorized_sellers WHERE subject = 'pub-partner2.test' ORDER BY 1`);
    expect(viaPartner).toEqual([
      { via_subject: 'partner-ctv.test', via_kind: 'inventorypartnerdomain' },
      { via_subject: 'pub-partner2.test', via_kind: 'self' },
    ]);
    const viaApp = await q(`SELECT DISTINCT via_subject FROM authorized_sellers WHERE subject = 'https://play.google.com/store/apps/details?id=com.simfix.puzzle'`);
    expect(viaApp).toEqual([{ via_subject: 'appdev.test' }]);
    const [adoption] = await q(`SELECT count(*) AS n, count(DISTINCT target) AS d FROM adoption`);
    const domains = (await readFile(path.join(fixtures, 'domains.txt'), 'utf8')).split('\n').filter((l) => l.trim() && !l.startsWith('#')).length;
    expect(adoption).toEqual({ n: domains, d: domains });
    const match = await q(`SELECT count(*) AS n FROM seller_match WHERE ad_system_domain = 'adsystem-one.test' AND seller_found`);
    expect(match[0]!.n).toBeGreaterThan(0);
  });

  it('the demo summary reads the snapshot through the views', async () => {
    const text = await summarizeSnapshot(out, DATE);
    expect(text).toMatch(/^Headline figures \(2026-11-22; 15 listed sites, /);
    expect(text).toMatch(/\n {2}Sites declaring an ads\.txt: +\d+(\.\d)?% \(\d+ of 15; 95% CI /);
    expect(text).toContain('inventorypartnerdomain followed');
  });
});
