import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl, type CrawlOptions } from '../pipelines/crawl.js';
import { openSnapshotDb } from '../src/sql/snapshot-db.js';
import { tables } from '../schemas/tables.js';
import { shippedLocationsFile } from '../src/resolve/sellers-location.js';
import { startLocalWeb, type LocalWeb } from './helpers/local-server.js';
import { runCli } from './helpers/run-cli.js';
import { snapshotRows, VOLATILE_COLUMNS } from './helpers/snapshot-rows.js';
import { createTestTls } from './helpers/tls.js';
import { useTempDirs } from './helpers/tmp.js';

/**
 * sellers.json where ad systems publish it, matched as researchers match, followed
 * through intermediaries. A small web, worked out by hand:
 *
 *   pub1.test/ads.txt names google.com, adx.test, flag.test (a --sellers-location) and
 *   moved.test (a --sellers-locations file entry).
 *   google.com/sellers.json is a 404; the shipped table sends the crawl on to
 *   realtimebidding.google.com, which redirects to storage.googleapis.com.
 *   flag.test and moved.test answer 404 at the spec's location too; adx.test serves its file
 *   there, so its table entry (adx-mirror.test) is never asked.
 *   adx.test → INTERMEDIARY https://Mid1.test/ → mid1 → mid2 → mid3 → BOTH mid4 → BOTH adx.test
 *   (a cycle back to an ad system) and INTERMEDIARY mid1 (a cycle); adx.test also names
 *   nofile.test (BOTH, no sellers.json) and PUBLISHER domains that must never be asked.
 *   flag.test names mid2 (INTERMEDIARY): mid2 is crawled in round 1, though it is 2 links from adx.
 *
 * Crawl rounds: 0 = adx, flag, google.com, moved; 1 = mid1, mid2, nofile; 2 = mid3; 3 = mid4; then
 * nothing new (mid4 names adx and mid1, both asked).
 */
const tempDir = useTempDirs('sellers-rounds');
const DATE = '2026-11-22';
const JSON_TYPE = { 'content-type': 'application/json' };
const PUBLISHERS = ['publisher-only.test', 'p1.test', 'p2.test', 'p3.test', 'p4.test', 'pub1-publisher.test'];

type Entry = [id: string, type: string, domain: string | null];
function sellers(entries: Entry[]): string {
  return JSON.stringify({ version: '1.0', sellers: entries.map(([seller_id, seller_type, domain]) => ({ seller_id, seller_type, name: seller_id, ...(domain ? { domain } : {}) })) });
}

const PUB1_ADS = [
  'OWNERDOMAIN=pub1.test',
  'google.com, pub-1111111111111111, DIRECT, f08c47fec0942fa0',
  'adx.test, PUB-ABC, DIRECT',
  'adx.test, Pub-Exact, DIRECT',
  'adx.test, PUB-EXACT, DIRECT',
  'adx.test, zzz-missing, DIRECT',
  'adx.test, 42, RESELLER',
  'flag.test, flag-1, DIRECT',
  'moved.test, m-1, DIRECT',
].join('\r\n'); // CRLF and no final line end: 9 lines

const FILES: Record<string, string> = {
  'https://realtimebidding.google.com/sellers.json': 'redirect:https://storage.googleapis.com/adx-rtb-dictionaries/sellers.json',
  'https://storage.googleapis.com/adx-rtb-dictionaries/sellers.json': sellers([['pub-1111111111111111', 'PUBLISHER', 'pub1.test']]),
  'https://adx.test/sellers.json': sellers([
    ['pub-abc', 'PUBLISHER', 'HTTPS://PUB1.TEST/about'],
    ['Pub-Exact', 'PUBLISHER', 'pub1.test'],
    ['pub-exact', 'INTERMEDIARY', null],
    ['42', 'INTERMEDIARY', 'https://Mid1.test/'],
    ['43', 'PUBLISHER', 'publisher-only.test'],
    ['44', 'BOTH', 'nofile.test'],
  ]),
  'https://data.flag-cdn.test/sellers.json': sellers([['flag-1', 'PUBLISHER', 'pub1-publisher.test'], ['flag-2', 'INTERMEDIARY', 'mid2.test']]),
  'https://moved-cdn.test/s.json': 'redirect:https://files.storage.test/moved/sellers.json',
  'https://files.storage.test/moved/sellers.json': sellers([['m-1', 'PUBLISHER', 'pub1.test']]),
  'https://mid1.test/sellers.json': sellers([['m1-a', 'INTERMEDIARY', 'mid2.test'], ['m1-p', 'PUBLISHER', 'p1.test']]),
  'https://mid2.test/sellers.json': sellers([['m2-a', 'INTERMEDIARY', 'mid3.test:443'], ['m2-p', 'PUBLISHER', 'p2.test']]),
  'https://mid3.test/sellers.json': sellers([['m3-a', 'BOTH', 'mid4.test'], ['m3-p', 'PUBLISHER', 'p3.test']]),
  'https://mid4.test/sellers.json': sellers([['m4-a', 'BOTH', 'adx.test'], ['m4-b', 'INTERMEDIARY', 'mid1.test'], ['m4-p', 'PUBLISHER', 'p4.test']]),
};

let web: LocalWeb;
let caFile: string;
let tmp: string;
let domains: string;
/** Requests to hold (answered when the test says so), by URL. */
const held = new Map<string, { waiting: Array<() => void>; release: boolean }>();
/** Requests answered late, by URL. */
const delays = new Map<string, number>();

beforeAll(async () => {
  const tls = await createTestTls();
  web = await startLocalWeb(tls);
  tmp = tempDir();
  caFile = path.join(tmp, 'ca.pem');
  writeFileSync(caFile, tls.caPem);
  web.reply('https://pub1.test/ads.txt', 200, PUB1_ADS);
  web.reply('https://pub1.test/robots.txt', 200, 'User-agent: *\nAllow: /\n');
  for (const [url, body] of Object.entries(FILES)) {
    web.route(url, async (_req, res: ServerResponse) => {
      const h = held.get(url);
      if (h && !h.release) await new Promise<void>((r) => h.waiting.push(r));
      const delay = delays.get(url);
      if (delay) await new Promise((r) => setTimeout(r, delay));
      if (body.startsWith('redirect:')) res.writeHead(302, { location: body.slice(9) }).end();
      else res.writeHead(200, JSON_TYPE).end(body);
    });
  }
  domains = path.join(tmp, 'domains.txt');
  writeFileSync(domains, 'pub1.test\n');
});

afterAll(async () => {
  for (const h of held.values()) for (const w of h.waiting) w();
  await web?.close();
});

const LOCATIONS = { 'flag.test': 'https://data.flag-cdn.test/sellers.json', 'moved.test': 'https://moved-cdn.test/s.json', 'adx.test': 'https://adx-mirror.test/sellers.json' };

function options(out: string, extra: Partial<CrawlOptions> = {}): CrawlOptions {
  return {
    domains,
    outDir: out,
    snapshotDate: DATE,
    checkpointSeconds: 0,
    sellersLocations: LOCATIONS,
    fetch: { connectTo: web.connectTo, caCerts: [readFileSync(caFile, 'utf8')], retries: 0 },
    ...extra,
  };
}

/** Requests the web saw from `from` on, as host + path. */
function seenSince(from: number): string[] {
  return web.seen.slice(from).map((s) => s.url.replace(/^https?:\/\//, ''));
}

describe('sellers.json locations, matching and intermediary rounds', () => {
  let out: string;
  let db: Awaited<ReturnType<typeof openSnapshotDb>>;
  let seen: string[];

  beforeAll(async () => {
    out = path.join(tmp, 'full');
    const from = web.seen.length;
    await crawl(options(out));
    seen = seenSince(from);
    db = await openSnapshotDb(out);
  }, 60_000);
  afterAll(() => db?.close());
  const q = (sql: string) => db.rows(sql);

  it('google.com: the spec location answers 404, the shipped table\'s entry serves the file (through a redirect); the rows stay google.com', async () => {
    // The spec's location first, then the table's first entry; its second is not asked once a file is read.
    const order = seen.filter((u) => u.includes('google') && !u.endsWith('/buyers.json'));
    expect(order).toEqual(['google.com/robots.txt', 'google.com/sellers.json', 'realtimebidding.google.com/robots.txt', 'realtimebidding.google.com/sellers.json', 'storage.googleapis.com/adx-rtb-dictionaries/sellers.json']);
    const [f] = await q(`SELECT subject, via, url, status, records FROM files WHERE file_kind = 'sellers.json' AND subject = 'google.com'`);
    expect(f).toEqual({ subject: 'google.com', via: 'ad_system', url: 'https://storage.googleapis.com/adx-rtb-dictionaries/sellers.json', status: 'ok', records: 1 });
    const x = await q(`SELECT url, status_code, final_url, redirects FROM fetches WHERE file_kind = 'sellers.json' AND subject = 'google.com' ORDER BY started_at`);
    expect(x).toEqual([
      { url: 'https://google.com/sellers.json', status_code: 404, final_url: 'https://google.com/sellers.json', redirects: [] },
      { url: 'https://realtimebidding.google.com/sellers.json', status_code: 200, final_url: 'https://storage.googleapis.com/adx-rtb-dictionaries/sellers.json', redirects: ['https://storage.googleapis.com/adx-rtb-dictionaries/sellers.json'] },
    ]);
    // Which location served it: the table's, asked at realtimebidding.google.com.
    expect(await q(`SELECT location, location_url FROM sellers_files WHERE ad_system_domain = 'google.com'`)).toEqual([{ location: 'table', location_url: 'https://realtimebidding.google.com/sellers.json' }]);
    expect(await q(`SELECT ad_system_domain, seller_id FROM sellers WHERE ad_system_domain = 'google.com'`)).toEqual([{ ad_system_domain: 'google.com', seller_id: 'pub-1111111111111111' }]);
    const [m] = await q(`SELECT seller_found, seller_missing, relationship_consistent FROM seller_match WHERE ad_system_domain = 'google.com'`);
    expect(m).toEqual({ seller_found: true, seller_missing: false, relationship_consistent: true });
    // The ad system's own host's robots.txt is a file of the snapshot (asked for the spec's location);
    // another host publishing the file is consulted for robots.txt, not recorded as a file of its own.
    expect(await q(`SELECT subject FROM files WHERE subject LIKE '%google%' AND file_kind = 'robots.txt'`)).toEqual([{ subject: 'google.com' }]);
  });

  it('configured locations (a --sellers-location, a locations file entry with a redirect): rows under the ad system', async () => {
    const rows = await q(`SELECT subject, url, status FROM files WHERE file_kind = 'sellers.json' AND subject IN ('flag.test', 'moved.test') ORDER BY subject`);
    expect(rows).toEqual([
      { subject: 'flag.test', url: 'https://data.flag-cdn.test/sellers.json', status: 'ok' },
      { subject: 'moved.test', url: 'https://files.storage.test/moved/sellers.json', status: 'ok' },
    ]);
    // Each asked at its spec location first (a 404 there), then at its entry.
    expect(seen.filter((u) => u.startsWith('flag.test/') || u.startsWith('moved.test/')).sort()).toEqual(['flag.test/buyers.json', 'flag.test/robots.txt', 'flag.test/sellers.json', 'moved.test/buyers.json', 'moved.test/robots.txt', 'moved.test/sellers.json']);
    expect(await q(`SELECT ad_system_domain AS a, location, location_url FROM sellers_files WHERE ad_system_domain IN ('flag.test', 'moved.test', 'adx.test') ORDER BY 1`)).toEqual([
      { a: 'adx.test', location: 'spec', location_url: 'https://adx.test/sellers.json' },
      { a: 'flag.test', location: 'table', location_url: 'https://data.flag-cdn.test/sellers.json' },
      { a: 'moved.test', location: 'table', location_url: 'https://moved-cdn.test/s.json' },
    ]);
    // adx.test serves its file at the spec's location: its table entry is never asked.
    expect(seen.filter((u) => u.startsWith('adx-mirror.test/'))).toEqual([]);
    // Only the rows of the attempt that served the file: the 404s left no parse issue.
    expect(await q(`SELECT count(*) AS n FROM parse_issues WHERE file_kind = 'sellers.json' AND subject IN ('flag.test', 'moved.test', 'google.com')`)).toEqual([{ n: 0 }]);
    const m = await q(`SELECT ad_system_domain, seller_found FROM seller_match WHERE ad_system_domain IN ('flag.test', 'moved.test') ORDER BY 1`);
    expect(m).toEqual([{ ad_system_domain: 'flag.test', seller_found: true }, { ad_system_domain: 'moved.test', seller_found: true }]);
  });

  it('seller ids match trimmed and case-insensitively; seller_found_exact keeps the byte-for-byte answer', async () => {
    const rows = await q(`SELECT seller_account_id AS id, seller_found AS found, seller_found_exact AS exact, seller_missing AS missing, seller_type AS type, relationship_consistent AS consistent
      FROM seller_match WHERE ad_system_domain = 'adx.test' ORDER BY line_no`);
    expect(rows).toEqual([
      { id: 'PUB-ABC', found: true, exact: false, missing: false, type: 'PUBLISHER', consistent: true },
      // The entry spelled as the record wins; else the first by seller_type (INTERMEDIARY < PUBLISHER).
      { id: 'Pub-Exact', found: true, exact: true, missing: false, type: 'PUBLISHER', consistent: true },
      { id: 'PUB-EXACT', found: true, exact: false, missing: false, type: 'INTERMEDIARY', consistent: false },
      { id: 'zzz-missing', found: false, exact: false, missing: true, type: null, consistent: null },
      { id: '42', found: true, exact: true, missing: false, type: 'INTERMEDIARY', consistent: true },
    ]);
  });

  it('OWNERDOMAIN ↔ sellers.domain compares hosts (HTTPS://PUB1.TEST/about is pub1.test)', async () => {
    const [r] = await q(`SELECT seller_domain, owner_domain, owner_domain_consistent FROM seller_match WHERE seller_account_id = 'PUB-ABC'`);
    expect(r).toEqual({ seller_domain: 'https://pub1.test/about', owner_domain: 'pub1.test', owner_domain_consistent: true });
  });

  it('intermediaries: each file once, via intermediary, in rounds; PUBLISHER domains never asked', async () => {
    const files = await q(`SELECT subject, via, status FROM files WHERE file_kind = 'sellers.json' ORDER BY subject`);
    expect(files).toEqual([
      { subject: 'adx.test', via: 'ad_system', status: 'ok' },
      { subject: 'flag.test', via: 'ad_system', status: 'ok' },
      { subject: 'google.com', via: 'ad_system', status: 'ok' },
      { subject: 'mid1.test', via: 'intermediary', status: 'ok' },
      { subject: 'mid2.test', via: 'intermediary', status: 'ok' },
      { subject: 'mid3.test', via: 'intermediary', status: 'ok' },
      { subject: 'mid4.test', via: 'intermediary', status: 'ok' },
      { subject: 'moved.test', via: 'ad_system', status: 'ok' },
      { subject: 'nofile.test', via: 'intermediary', status: 'not_found' },
    ]);
    // One request per sellers.json URL, however many entries and cycles name it; two for the ad
    // systems whose spec location answered 404 before their table entry served the file.
    const sellersAsked = seen.filter((u) => u.endsWith('/sellers.json') || u.endsWith('/s.json'));
    expect(sellersAsked.length).toBe(new Set(sellersAsked).size);
    expect(await q(`SELECT subject, count(*) AS n FROM fetches WHERE file_kind = 'sellers.json' AND NOT contains(url, 'storage') GROUP BY 1 HAVING count(*) > 1 ORDER BY 1`)).toEqual([
      { subject: 'flag.test', n: 2 },
      { subject: 'google.com', n: 2 },
      { subject: 'moved.test', n: 2 },
    ]);
    for (const p of PUBLISHERS) expect(seen.filter((u) => u.startsWith(`${p}/`)), p).toEqual([]);
    // Entries go under their own file's domain; robots.txt of an intermediary host is recorded.
    expect(await q(`SELECT ad_system_domain, count(*) AS n FROM sellers WHERE ad_system_domain LIKE 'mid%' GROUP BY 1 ORDER BY 1`)).toEqual([
      { ad_system_domain: 'mid1.test', n: 2 },
      { ad_system_domain: 'mid2.test', n: 2 },
      { ad_system_domain: 'mid3.test', n: 2 },
      { ad_system_domain: 'mid4.test', n: 3 },
    ]);
    expect(await q(`SELECT via FROM files WHERE subject = 'mid1.test' AND file_kind = 'robots.txt'`)).toEqual([{ via: 'intermediary' }]);
    const manifest = JSON.parse(readFileSync(path.join(out, '_runs', readdirSync(path.join(out, '_runs'))[0]!), 'utf8'));
    expect(manifest.sellers_rounds).toEqual({
      rounds: [{ round: 0, files: 4 }, { round: 1, files: 3 }, { round: 2, files: 1 }, { round: 3, files: 1 }],
      limit_reached: null,
    });
    expect(manifest.options.sellers_depth).toBe(5);
  });

  it('seller_reach: the smallest number of INTERMEDIARY/BOTH links from each ad system, cycles ended', async () => {
    const rows = await q(`SELECT ad_system_domain AS a, via_domain AS v, depth FROM seller_reach GROUP BY ALL ORDER BY a, depth, v`);
    const by = (a: string) => rows.filter((r) => r.a === a).map((r) => `${r.depth}:${r.v}`);
    // nofile.test (depth 1 from adx) has no entries, so no rows.
    expect(by('adx.test')).toEqual(['0:adx.test', '1:mid1.test', '2:mid2.test', '3:mid3.test', '4:mid4.test']);
    // mid4 names adx.test and mid1.test: both 4 links from flag.test.
    expect(by('flag.test')).toEqual(['0:flag.test', '1:mid2.test', '2:mid3.test', '3:mid4.test', '4:adx.test', '4:mid1.test']);
    expect(by('google.com')).toEqual(['0:google.com']);
    expect(by('moved.test')).toEqual(['0:moved.test']);
    expect(rows.some((r) => r.a === 'mid1.test')).toBe(false); // intermediaries are no ad systems of their own
    // The README's question: which publishers an ad system reaches, through how many intermediaries.
    const publishers = await q(`
      SELECT depth, list(seller_domain ORDER BY seller_domain) AS publishers FROM (
        SELECT seller_domain, min(depth) AS depth FROM seller_reach
        WHERE ad_system_domain = 'adx.test' AND seller_type IN ('PUBLISHER', 'BOTH') AND seller_domain IS NOT NULL
        GROUP BY seller_domain
      ) GROUP BY depth ORDER BY depth`);
    expect(publishers).toEqual([
      { depth: 0, publishers: ['nofile.test', 'pub1.test', 'publisher-only.test'] },
      { depth: 1, publishers: ['p1.test'] },
      { depth: 2, publishers: ['p2.test'] },
      { depth: 3, publishers: ['mid4.test', 'p3.test'] },
      { depth: 4, publishers: ['adx.test', 'p4.test'] },
    ]);
    const [reach] = await q(`SELECT seller_domain FROM seller_reach WHERE via_domain = 'adx.test' AND seller_id = '42' AND ad_system_domain = 'adx.test'`);
    expect(reach).toEqual({ seller_domain: 'mid1.test' });
  });

  it('ad_system_coverage: records checkable per ad system, and whether only a location made them so', async () => {
    const rows = await q(`SELECT ad_system_domain AS a, records, checkable, found, sellers_json_status AS status, at_spec_location AS spec FROM ad_system_coverage ORDER BY a`);
    expect(rows).toEqual([
      { a: 'adx.test', records: 5, checkable: 5, found: 4, status: 'ok', spec: true },
      { a: 'flag.test', records: 1, checkable: 1, found: 1, status: 'ok', spec: false },
      { a: 'google.com', records: 1, checkable: 1, found: 1, status: 'ok', spec: false },
      { a: 'moved.test', records: 1, checkable: 1, found: 1, status: 'ok', spec: false },
    ]);
  });

  it('files.lines: physical lines of ads.txt and robots.txt (CRLF, no final line end), null for sellers.json', async () => {
    const rows = await q(`SELECT subject, file_kind, lines FROM files WHERE subject IN ('pub1.test', 'adx.test', 'mid1.test') AND file_kind <> 'buyers.json' ORDER BY 1, 2`);
    expect(rows).toEqual([
      { subject: 'adx.test', file_kind: 'robots.txt', lines: null },
      { subject: 'adx.test', file_kind: 'sellers.json', lines: null },
      { subject: 'mid1.test', file_kind: 'robots.txt', lines: null },
      { subject: 'mid1.test', file_kind: 'sellers.json', lines: null },
      { subject: 'pub1.test', file_kind: 'ads.txt', lines: 9 },
      { subject: 'pub1.test', file_kind: 'robots.txt', lines: 2 },
    ]);
  });
});

describe('--sellers-depth and the bound on intermediary files', () => {
  it('--sellers-depth 2 stops after round 2 (mid4 is not asked); 0 asks the ad systems only', async () => {
    const two = path.join(tmp, 'depth2');
    const from = web.seen.length;
    await crawl(options(two, { sellersDepth: 2 }));
    expect(seenSince(from).filter((u) => u.startsWith('mid4.test'))).toEqual([]);
    const db = await openSnapshotDb(two);
    try {
      const rows = await db.rows(`SELECT list(subject ORDER BY subject) AS s FROM files WHERE file_kind = 'sellers.json' AND via = 'intermediary'`);
      expect(rows).toEqual([{ s: ['mid1.test', 'mid2.test', 'mid3.test', 'nofile.test'] }]);
    } finally {
      db.close();
    }
    const zero = path.join(tmp, 'depth0');
    await crawl(options(zero, { sellersDepth: 0 }));
    const db0 = await openSnapshotDb(zero);
    try {
      expect(await db0.rows(`SELECT count(*) AS n FROM files WHERE via = 'intermediary'`)).toEqual([{ n: 0 }]);
      expect(await db0.rows(`SELECT count(*) AS n FROM files WHERE file_kind = 'sellers.json'`)).toEqual([{ n: 4 }]);
    } finally {
      db0.close();
    }
  }, 60_000);

  it('--max-intermediaries 2: round 1 is cut (sorted: mid1, mid2), no later round, the manifest says so', async () => {
    const out = path.join(tmp, 'bounded');
    const r = await crawl(options(out, { maxIntermediaries: 2 }));
    const manifest = JSON.parse(readFileSync(r.manifestPath, 'utf8'));
    expect(manifest.sellers_rounds).toEqual({ rounds: [{ round: 0, files: 4 }, { round: 1, files: 2 }], limit_reached: { round: 1, not_fetched: 1 } });
    const db = await openSnapshotDb(out);
    try {
      expect(await db.rows(`SELECT list(subject ORDER BY subject) AS s FROM files WHERE via = 'intermediary' AND file_kind = 'sellers.json'`)).toEqual([{ s: ['mid1.test', 'mid2.test'] }]);
    } finally {
      db.close();
    }
  }, 60_000);

  it('--no-sellers: no sellers.json at all, no rounds', async () => {
    const out = path.join(tmp, 'no-sellers');
    const from = web.seen.length;
    await crawl(options(out, { sellers: false }));
    expect(seenSince(from).filter((u) => u.includes('sellers.json') || u.endsWith('s.json'))).toEqual([]);
  }, 60_000);
});

describe('incremental nights and locations', () => {
  it('an earlier 404 at the spec location does not stand in for a location added since (even with --reuse-fresh)', async () => {
    const out = path.join(tmp, 'nights');
    // Night 1 knows no location for flag.test and moved.test: both 404 at https://<ad system>/sellers.json.
    await crawl(options(out, { sellersLocations: {}, snapshotDate: '2026-11-20', now: new Date('2026-11-20T02:00:00Z') }));
    // Night 2 (a day later, within the 404's freshness) knows them.
    await crawl(options(out, { snapshotDate: '2026-11-21', now: new Date('2026-11-21T02:00:00Z'), reuseFresh: true }));
    const db = await openSnapshotDb(out);
    try {
      const rows = await db.rows(`SELECT strftime(snapshot_date, '%d') AS d, subject, status, obtained, url FROM files WHERE file_kind = 'sellers.json' AND subject IN ('flag.test', 'moved.test', 'mid1.test') ORDER BY subject, d`);
      expect(rows).toEqual([
        { d: '20', subject: 'flag.test', status: 'not_found', obtained: 'fetched', url: null },
        { d: '21', subject: 'flag.test', status: 'ok', obtained: 'fetched', url: 'https://data.flag-cdn.test/sellers.json' },
        // An intermediary is an incremental file like any other: still fresh, reused without a request.
        { d: '20', subject: 'mid1.test', status: 'ok', obtained: 'fetched', url: 'https://mid1.test/sellers.json' },
        { d: '21', subject: 'mid1.test', status: 'ok', obtained: 'reused', url: 'https://mid1.test/sellers.json' },
        { d: '20', subject: 'moved.test', status: 'not_found', obtained: 'fetched', url: null },
        { d: '21', subject: 'moved.test', status: 'ok', obtained: 'fetched', url: 'https://files.storage.test/moved/sellers.json' },
      ]);
      const cov = await db.rows(`SELECT strftime(snapshot_date, '%d') AS d, sum(checkable) AS checkable, sum(checkable) FILTER (WHERE at_spec_location) AS at_spec FROM ad_system_coverage GROUP BY 1 ORDER BY 1`);
      // Night 1: adx.test (5 records) at the spec's place, google.com (1) through the shipped table.
      // Night 2: flag.test and moved.test too; adx.test reused, asked on night 1 at the spec's place.
      expect(cov).toEqual([
        { d: '20', checkable: 6, at_spec: 5 },
        { d: '21', checkable: 8, at_spec: 5 },
      ]);
    } finally {
      db.close();
    }
  }, 60_000);
});

describe('resume across the rounds', () => {
  it('killed inside round 1 and again inside round 2: the resumed run has the rows of an uninterrupted one, each file once', async () => {
    const reference = path.join(tmp, 'reference');
    await crawl(options(reference));
    const out = path.join(tmp, 'resumed');
    const statePath = () => {
      const dir = path.join(out, '_staging');
      const run = readdirSync(dir).find((n) => !n.endsWith('.lock'));
      return path.join(dir, run!, 'state.json');
    };
    const attempt = async (holdUrl: string, concurrency: number, until: (state: { phase: string; sellersRounds?: { round: number }; done: { sellers: { prefix: number; extra: number[] } } }) => boolean) => {
      const h = { waiting: [] as Array<() => void>, release: false };
      held.set(holdUrl, h);
      const controller = new AbortController();
      const run = crawl(options(out, { checkpointSeconds: 1, concurrency, signal: controller.signal })).then(
        () => 'finished',
        (err: Error) => err.message,
      );
      // Wait for the held request and a checkpoint that says what we want, then stop the run.
      for (let i = 0; i < 200; i++) {
        await new Promise((r) => setTimeout(r, 50));
        let state = null;
        try {
          state = JSON.parse(readFileSync(statePath(), 'utf8'));
        } catch {
          continue;
        }
        if (h.waiting.length > 0 && until(state)) break;
      }
      controller.abort(new Error('stopped by the test'));
      expect(await run).toBe('stopped by the test');
      h.release = true;
      for (const w of h.waiting.splice(0)) w();
      held.delete(holdUrl);
      return JSON.parse(readFileSync(statePath(), 'utf8'));
    };
    // 1: round 1 (mid1, mid2, nofile, one at a time) with mid1 done and checkpointed, mid2 held in
    // flight. mid1 answers after 1.2 s, so that its lane takes a checkpoint before the next item
    // (the pool checkpoints between items, every --checkpoint-interval).
    delays.set('https://mid1.test/sellers.json', 1200);
    const first = await attempt('https://mid2.test/sellers.json', 1, (s) => s.sellersRounds?.round === 1 && s.done.sellers.prefix >= 1);
    delays.clear();
    expect(first.sellersRounds.round).toBe(1);
    expect(first.done.sellers).toEqual({ prefix: 1, extra: [] });
    // 2: resumed inside round 1, stopped again in round 2 (mid3 held).
    const from = web.seen.length;
    const second = await attempt('https://mid3.test/sellers.json', 16, (s) => s.sellersRounds?.round === 2);
    expect(second.sellersRounds.round).toBe(2);
    // The resumed attempt did not ask again for what round 0 and round 1's done items had read.
    expect(seenSince(from).filter((u) => ['adx.test/sellers.json', 'mid1.test/sellers.json'].includes(u))).toEqual([]);
    // 3: resumed inside round 2, to the end.
    const r = await crawl(options(out, { checkpointSeconds: 1 }));
    expect(r.resumed).toBe(true);
    const [want, got] = [await snapshotRows(reference, VOLATILE_COLUMNS), await snapshotRows(out, VOLATILE_COLUMNS)];
    for (const name of Object.keys(tables)) expect(got[name], name).toEqual(want[name]);
  }, 90_000);
});

describe('adsnap crawl flags', () => {
  it('--sellers-location, --sellers-locations FILE and --sellers-depth reach the crawl; bad values are usage errors', async () => {
    const out = path.join(tmp, 'cli');
    const table = path.join(tmp, 'locations.tsv');
    writeFileSync(table, '# operator table\nmoved.test\thttps://moved-cdn.test/s.json\n');
    const connect = web.connectTo.flatMap((c) => ['--connect-to', c]);
    const r = await runCli(['crawl', '--domains', domains, '--out', out, '--snapshot-date', DATE, '--progress', 'none', '--cacert', caFile, ...connect,
      '--sellers-location', 'flag.test=https://data.flag-cdn.test/sellers.json', '--sellers-locations', table, '--sellers-depth', '1']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const db = await openSnapshotDb(out);
    try {
      const rows = await db.rows(`SELECT subject, via, status FROM files WHERE file_kind = 'sellers.json' ORDER BY subject`);
      expect(rows.map((x) => `${x.subject}:${x.via}:${x.status}`)).toEqual([
        'adx.test:ad_system:ok', 'flag.test:ad_system:ok', 'google.com:ad_system:ok', 'mid1.test:intermediary:ok',
        'mid2.test:intermediary:ok', 'moved.test:ad_system:ok', 'nofile.test:intermediary:not_found',
      ]);
    } finally {
      db.close();
    }
    const bad = async (...args: string[]) => runCli(['crawl', '--domains', domains, '--out', path.join(tmp, 'bad'), ...args]);
    expect((await bad('--sellers-location', 'flag.test')).stderr).toMatch(/AD_SYSTEM=URL/);
    expect((await bad('--sellers-location', 'flag.test=ftp://x.test/s.json')).code).toBe(2);
    expect((await bad('--sellers-location', 'not a domain=https://x.test/s.json')).stderr).toMatch(/not an ad system domain/);
    expect((await bad('--sellers-depth', '33')).stderr).toMatch(/--sellers-depth must be an integer from 0 to 32/);
    expect((await bad('--sellers-locations', path.join(tmp, 'missing.tsv'))).stderr).toMatch(/ENOENT/);
    expect((await bad('--shard', '1/3', '--stage', 'intermediaries')).stderr).toMatch(/runs once, as --shard 0\/3/);
  }, 90_000);

  it('--config FILE holds sellers-location, sellers-depth, max-intermediaries; a flag wins; the manifest says which table was used', async () => {
    const out = path.join(tmp, 'cli-config');
    const config = path.join(tmp, 'sellers-config.json');
    // flag.test's entry in the file is overridden by the flag; moved.test's stays; depth 1 from the file.
    writeFileSync(config, JSON.stringify({
      'sellers-location': { 'flag.test': 'https://wrong-cdn.test/sellers.json', 'moved.test': 'https://moved-cdn.test/s.json' },
      'sellers-depth': 1,
      'max-intermediaries': 2,
    }));
    const connect = web.connectTo.flatMap((c) => ['--connect-to', c]);
    const from = web.seen.length;
    const r = await runCli(['crawl', '--domains', domains, '--out', out, '--snapshot-date', DATE, '--progress', 'none', '--cacert', caFile, ...connect,
      '--config', config, '--sellers-location', 'flag.test=https://data.flag-cdn.test/sellers.json', '--max-intermediaries', '10']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const seen = seenSince(from);
    expect(seen).toContain('data.flag-cdn.test/sellers.json');
    expect(seen).toContain('moved-cdn.test/s.json');
    expect(seen.filter((u) => u.startsWith('wrong-cdn.test/'))).toEqual([]);
    // Depth 1 (the file's): round 1 is mid1, mid2, nofile, all within the flag's bound of 10; mid3 is never asked.
    expect(seen.filter((u) => /^mid\d\.test\/sellers\.json$|^nofile\.test\/sellers\.json$/.test(u)).sort()).toEqual(['mid1.test/sellers.json', 'mid2.test/sellers.json', 'nofile.test/sellers.json']);
    const manifest = JSON.parse(readFileSync(path.join(out, '_runs', readdirSync(path.join(out, '_runs')).find((f) => f.endsWith('.json'))!), 'utf8'));
    expect(manifest.fetch.config_file).toBe(config);
    expect(manifest.options).toMatchObject({
      sellers: true,
      sellers_depth: 1,
      max_intermediaries: 10,
      sellers_locations: { 'flag.test': 'https://data.flag-cdn.test/sellers.json', 'moved.test': 'https://moved-cdn.test/s.json' },
    });
    // The shipped table the entries were laid on: enough to reproduce the night's locations.
    const shipped = readFileSync(shippedLocationsFile());
    const entries = shipped.toString('utf8').split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#')).length;
    expect(manifest.options.sellers_locations_table).toEqual({ file: 'data/sellers-locations.tsv', sha256: createHash('sha256').update(shipped).digest('hex'), entries });
    expect(manifest.sellers_rounds).toEqual({ rounds: [{ round: 0, files: 4 }, { round: 1, files: 3 }], limit_reached: null });
  }, 90_000);

  it('a bad sellers.json value in --config FILE exits 2 before anything is written', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ 'sellers-depth': 33 }, /sellers-depth must be an integer from 0 to 32, got 33/],
      [{ 'max-intermediaries': 'many' }, /max-intermediaries must be an integer/],
      [{ 'sellers-location': { 'flag.test': 'ftp://data.flag-cdn.test/sellers.json' } }, /sellers-location: .* is not an http\(s\) URL/],
      [{ 'sellers-location': ['flag.test'] }, /sellers-location must be AD_SYSTEM=URL/],
      [{ 'sellers-locatoin': {} }, /unknown knob "sellers-locatoin"/],
    ];
    for (const [i, [obj, message]] of cases.entries()) {
      const out = path.join(tmp, `bad-config-${i}`);
      const config = path.join(tmp, `bad-config-${i}.json`);
      writeFileSync(config, JSON.stringify(obj));
      const from = web.seen.length;
      const r = await runCli(['crawl', '--domains', domains, '--out', out, '--config', config, '--progress', 'none']);
      expect(r.code, JSON.stringify(obj)).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toContain(`--config ${config}`);
      expect(existsSync(out)).toBe(false);
      expect(web.seen.length).toBe(from);
    }
  }, 90_000);
});
