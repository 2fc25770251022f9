import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../pipelines/crawl.js';
import { reparse } from '../pipelines/reparse.js';
import { openSnapshotDb } from '../src/sql/snapshot-db.js';
import { DERIVED_TABLES, SERIES_TABLES, derivedKey, markerPath, readMarker, readSeriesMarker, seriesMarkerPath, type DerivedMarker } from '../src/sql/derived.js';
import { derivedAgainstViews, oneNumber } from './helpers/derived-check.js';
import { buildReport, type ReportJson } from '../src/report/index.js';
import { deriveNight, deriveRoot, subjectRanges } from '../src/report/derived.js';
import { startLocalWeb, type LocalWeb } from './helpers/local-server.js';
import { createTestTls } from './helpers/tls.js';
import { runCli } from './helpers/run-cli.js';
import { useTempDirs } from './helpers/tmp.js';

/**
 * The derived tables (src/sql/derived.ts, src/report/derived.ts; issue 34): written at each
 * commit, equal to their views' rows, read in place of the definitions only while current, and
 * written by `adsnap derive` for the nights that lack them. And one number (issue 39): every
 * figure's count of a shared word equals the headline's, on every night.
 */
const tempDir = useTempDirs('derived');
const T0 = Date.parse('2026-11-20T02:00:00Z');
const NIGHTS = ['2026-11-20', '2026-11-21', '2026-11-22'] as const;
const TEXT = { 'content-type': 'text/plain' };
type Served = { status: number; body?: string; headers?: Record<string, string> };
const sellers = (ids: [string, string, string][]): Served => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ version: '1.0', sellers: ids.map(([seller_id, seller_type, domain]) => ({ seller_id, seller_type, name: seller_id, domain })) }),
});
const txt = (body: string): Served => ({ status: 200, body, headers: TEXT });
const WALL: Served = { status: 403, body: '<!doctype html><html><body>Just a moment...</body></html>\n', headers: { 'content-type': 'text/html', 'cf-mitigated': 'challenge' } };

/** What each URL serves on each night; a missing night repeats the previous one. Night 3: adx's sellers.json unreadable, a.test's robots.txt behind a wall. */
const SITE: Record<string, Served[]> = {
  'https://a.test/ads.txt': [txt('OWNERDOMAIN=a.test\nadx.test, 1, DIRECT\nadx.test, 5, RESELLER\n'), txt('OWNERDOMAIN=a.test\nadx.test, 1, DIRECT\nadx.test, 5, RESELLER\nadx.test, 2, DIRECT\nadz.test, 9, DIRECT\n')],
  // b.test is served as text/html-less octet-stream on night 2: declaring, not valid (the narrower population).
  'https://b.test/ads.txt': [txt('OWNERDOMAIN=b.test\nadx.test, 1, DIRECT\nadx.test, 77, DIRECT\n'), { status: 200, body: 'adx.test, 1, DIRECT\nadx.test, 77, DIRECT\n', headers: { 'content-type': 'application/octet-stream' } }],
  'https://c.test/ads.txt': [{ status: 404 }, txt('adx.test, 1, DIRECT\nplaceholder.example.com, placeholder, DIRECT\n')],
  // d.test fails on night 2 (not an observation): night 3's changes are against night 1's file, read through the carry.
  'https://d.test/ads.txt': [txt('adx.test, 1, DIRECT\nadx.test, 40, RESELLER\n'), { status: 503, body: 'busy' }, txt('adx.test, 1, DIRECT\nadx.test, 41, RESELLER\n')],
  'https://a.test/robots.txt': [txt('User-agent: *\nDisallow: /private\n'), txt('User-agent: *\nDisallow: /private\n'), WALL],
  'https://adx.test/sellers.json': [sellers([['1', 'PUBLISHER', 'a.test'], ['5', 'PUBLISHER', 'x.test']]), sellers([['1', 'PUBLISHER', 'a.test'], ['2', 'PUBLISHER', 'a.test']]), txt('{"sellers": [ not json')],
  'https://adz.test/sellers.json': [sellers([['9', 'PUBLISHER', 'a.test']])],
};

let web: LocalWeb;
let out: string;
let domains: string;
let night = 0;
let fetchOptions: Parameters<typeof crawl>[0]['fetch'];

beforeAll(async () => {
  const tls = await createTestTls();
  web = await startLocalWeb(tls);
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
  domains = path.join(dir, 'top.csv');
  writeFileSync(domains, '1,a.test\n2,b.test\n3,c.test\n4,d.test\n');
  fetchOptions = { connectTo: web.connectTo, caCerts: [tls.caPem], retries: 0 };
  for (const [i, date] of NIGHTS.entries()) {
    night = i;
    await crawl({ domains, outDir: out, snapshotDate: date, now: new Date(T0 + i * 86_400_000), checkpointSeconds: 0, fetch: fetchOptions });
  }
}, 180_000);

afterAll(async () => {
  await web?.close();
});

function copyRoot(name: string, from = out): string {
  const to = path.join(tempDir(), name);
  cpSync(from, to, { recursive: true });
  return to;
}

/** Every file under ROOT/_derived (relative), with its modification time. */
function derivedFiles(root: string): Map<string, number> {
  const files = new Map<string, number>();
  const walk = (dir: string) => {
    for (const f of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, f.name);
      if (f.isDirectory()) walk(p);
      else files.set(path.relative(root, p), statSync(p).mtimeMs);
    }
  };
  if (existsSync(path.join(root, '_derived'))) walk(path.join(root, '_derived'));
  return files;
}

async function report(roots: string[], name: string): Promise<ReportJson> {
  const r = await buildReport({ roots, outDir: path.join(tempDir(), name), now: new Date(T0) });
  return JSON.parse(readFileSync(r.json, 'utf8')) as ReportJson;
}

const rowsOf = (json: ReportJson, key: string) => json.sections.flatMap((s) => s.figures).find((f) => f.key === key)!.rows;

describe('derived tables', () => {
  it('are written at each commit: one current set per night, each table equal to its view\'s rows', { timeout: 300_000 }, async () => {
    for (const date of NIGHTS) {
      const m = (await readMarker(out, date)) as DerivedMarker;
      expect(m.key).toBe(derivedKey());
      expect(Object.keys(m.tables).sort()).toEqual(DERIVED_TABLES.map((t) => t.name).sort());
      expect(await derivedAgainstViews(out, date)).toEqual([]);
    }
    const db = await openSnapshotDb(out);
    try {
      expect(db.derived).toEqual({ nights: [...NIGHTS], underived: [], changesUnderived: [] });
      // adx.test's seller 1 is claimed DIRECT by a.test and b.test (two owners): the pooled ids are not an empty check.
      const pooled = await db.rows(`SELECT strftime(snapshot_date, '%Y-%m-%d') AS d, seller_account_id, owners, sample_owners FROM pooled_seller_ids WHERE ad_system_domain = 'adx.test' ORDER BY ALL`);
      expect(pooled[0]).toEqual({ d: NIGHTS[0], seller_account_id: '1', owners: 3, sample_owners: ['a.test', 'b.test', 'd.test'] });
      // The series is what it says: night 3's sellers.json unreadable, a.test's robots.txt walled.
      const n3 = await db.rows(`SELECT file_kind, subject, status FROM files WHERE snapshot_date = '2026-11-22' AND (file_kind = 'sellers.json' AND subject IN ('adx.test', 'adz.test') OR file_kind = 'robots.txt' AND subject = 'a.test') ORDER BY ALL`);
      expect(n3).toEqual([
        { file_kind: 'robots.txt', subject: 'a.test', status: 'blocked' },
        { file_kind: 'sellers.json', subject: 'adx.test', status: 'invalid_json' },
        { file_kind: 'sellers.json', subject: 'adz.test', status: 'ok' },
      ]);
    } finally {
      db.close();
    }
  });

  it('one number: on every night, every figure\'s root records, checkable and not found are the headline\'s', { timeout: 600_000 }, async () => {
    const json = await report([out], 'one-number');
    expect(json.derived_nights).toEqual([...NIGHTS]);
    const db = await openSnapshotDb(out, { derived: false });
    let heads: Record<string, unknown>[];
    try {
      heads = await db.rows(`SELECT strftime(snapshot_date, '%Y-%m-%d') AS d, key, n, denominator FROM headline_figures WHERE key IN ('direct_record_share_root', 'seller_id_not_found_root') ORDER BY ALL`);
    } finally {
      db.close();
    }
    const head = (d: string, key: string) => heads.find((h) => h.d === d && h.key === key)!;
    const overTime = rowsOf(json, 'consistency.over_time');
    expect(overTime.map((r) => r.snapshot_date)).toEqual([...NIGHTS]);
    for (const r of overTime) {
      const d = String(r.snapshot_date);
      expect([r.records, r.checkable, r.missing], d).toEqual([head(d, 'direct_record_share_root').denominator, head(d, 'seller_id_not_found_root').denominator, head(d, 'seller_id_not_found_root').n]);
    }
    const latest = NIGHTS[2];
    const total = rowsOf(json, 'consistency.by_ad_system').find((r) => r.scope === 'root' && r.ad_system_domain === null)!;
    expect([total.records, total.checkable, total.missing]).toEqual([json.headline.direct_record_share_root.denominator, json.headline.seller_id_not_found_root.denominator, json.headline.seller_id_not_found_root.n]);
    // Night 3: adx's sellers.json unreadable, so its records are not checkable; night 2 counts b.test's invalid file.
    expect(json.headline.seller_id_not_found_root.denominator).toBeLessThan(json.headline.direct_record_share_root.denominator!);
    // Night 2: a.test 4, b.test 2 (served as application/octet-stream: declaring, not valid, yet root records), c.test 1 (its placeholder
    // left out), d.test 2 (its night-1 file carried forward after a 503: it still declares, not an observation for record_changes).
    expect(head('2026-11-21', 'direct_record_share_root').denominator).toBe(9);
    // The narrower population (valid files) shows the headline's number beside its own.
    expect(oneNumber(json)).toEqual([]);
    expect(json.window.nights.at(-1)).toBe(latest);
  });

  it('a root written without them: the report names the nights and `adsnap derive`, and report.json is the same after derive', async () => {
    const old = copyRoot('old');
    rmSync(path.join(old, '_derived'), { recursive: true });
    const before = await report([old], 'before');
    expect(before.underived_nights).toEqual([...NIGHTS]);
    expect(before.missing.join('\n')).toMatch(/2026-11-20, 2026-11-21, 2026-11-22 have no current derived tables.*adsnap derive/);
    // On stderr before the setup's first step: a report that then runs out of memory has said why, and what to run.
    const cli = await runCli(['report', old, '--out', tempDir()], { env: { ADSNAP_REPORT_TIMING: '1' } });
    expect(cli.code, cli.stderr).toBe(0);
    const notice = cli.stderr.indexOf('have no current derived tables');
    expect(notice).toBeGreaterThan(-1);
    expect(notice).toBeLessThan(cli.stderr.indexOf('setup '));
    const derive = await runCli(['derive', old]);
    expect(derive.code, derive.stderr).toBe(0);
    expect(derive.stdout).toMatch(/3 nights derived, 0 already current/);
    const after = await report([old], 'after');
    expect(after.underived_nights).toEqual([]);
    const strip = ({ generated_at: _g, roots: _r, setup_sql: _s, derived_nights: _d, underived_nights: _u, missing: _m, ...rest }: ReportJson) => rest;
    expect(strip(after)).toEqual(strip(before));
    expect(after.missing.filter((m) => /derive/.test(m))).toEqual([]);
  }, 600_000);

  it('a stale key is ignored (the definitions answer) and derive replaces it; derive twice does nothing the second time', async () => {
    const root = copyRoot('stale');
    const file = markerPath(root, NIGHTS[1]);
    const m = JSON.parse(readFileSync(file, 'utf8')) as DerivedMarker;
    writeFileSync(file, JSON.stringify({ ...m, key: 'an-older-vocabulary' }));
    // Poison the stale set: were it read, the headline would change.
    const part = path.join(root, m.tables.headline_figures!);
    const db0 = await openSnapshotDb(root, { derived: false });
    await db0.rows(`COPY (SELECT * REPLACE (n + 1000 AS n) FROM read_parquet('${part}')) TO '${part}.x' (FORMAT parquet)`);
    db0.close();
    cpSync(`${part}.x`, part);
    rmSync(`${part}.x`);
    const db = await openSnapshotDb(root);
    try {
      expect(db.derived.underived).toEqual([NIGHTS[1]]);
      const [h] = await db.rows(`SELECT n FROM headline_figures_at(DATE '${NIGHTS[1]}') WHERE key = 'direct_record_share_root'`);
      expect(h!.n).toBeLessThan(1000);
    } finally {
      db.close();
    }
    expect((await deriveRoot(root)).map((d) => [d.night, d.outcome])).toEqual([
      [NIGHTS[0], 'current'],
      [NIGHTS[1], 'written'],
      [NIGHTS[2], 'current'],
    ]);
    expect(await derivedAgainstViews(root, NIGHTS[1])).toEqual([]);
    const files = derivedFiles(root);
    // One set per night: the stale parts are gone.
    expect([...files.keys()].filter((f) => f.includes(`snapshot_date=${NIGHTS[1]}`))).toHaveLength(DERIVED_TABLES.length + SERIES_TABLES.length);
    const again = await runCli(['derive', root]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/0 nights derived, 3 already current/);
    expect(derivedFiles(root)).toEqual(files);
  }, 600_000);

  it('a derivation killed before its marker is finished by the next; --night bounds it', async () => {
    const root = copyRoot('killed');
    // A kill after the parts, before the marker: the parts of a new set lie beside the night's old one, which is no longer named.
    const m = (await readMarker(root, NIGHTS[2]))!;
    for (const p of Object.values(m.tables)) cpSync(path.join(root, p), path.join(root, path.dirname(p), 'killed-set.parquet'));
    rmSync(markerPath(root, NIGHTS[2]));
    rmSync(markerPath(root, NIGHTS[0]));
    const one = await runCli(['derive', root, '--night', NIGHTS[2]]);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toMatch(/1 night derived, 0 already current/);
    expect(existsSync(markerPath(root, NIGHTS[0]))).toBe(false);
    expect([...derivedFiles(root).keys()].filter((f) => f.includes('killed-set'))).toEqual([]);
    expect(await derivedAgainstViews(root, NIGHTS[2])).toEqual([]);
    // The series sets: --night writes them up to that night (each needs the one before), not after.
    rmSync(seriesMarkerPath(root, NIGHTS[1]));
    rmSync(seriesMarkerPath(root, NIGHTS[2]));
    const two = await runCli(['derive', root, '--night', NIGHTS[1]]);
    expect(two.code, two.stderr).toBe(0);
    expect(two.stdout).toMatch(/1 night derived, 0 already current/);
    expect([existsSync(seriesMarkerPath(root, NIGHTS[1])), existsSync(seriesMarkerPath(root, NIGHTS[2]))]).toEqual([true, false]);
    const rest = await runCli(['derive', root]);
    expect(rest.stdout).toMatch(/2 nights derived, 1 already current/);
    expect(await derivedAgainstViews(root, NIGHTS[2])).toEqual([]);
    const bad = await runCli(['derive', root, '--night', '2026-13-01']);
    expect(bad.code).toBe(2);
  }, 600_000);

  it('one database for a root\'s derivation: each step reads its own nights, and a step out of memory is run again in it under a larger limit', { timeout: 600_000 }, async () => {
    const root = copyRoot('one-db');
    // readNights points the table views, and every view over them, at other nights' folders.
    const db = await openSnapshotDb(root, { derived: false, night: [NIGHTS[0]] });
    try {
      const nights = async () => (await db.rows(`SELECT DISTINCT strftime(snapshot_date, '%Y-%m-%d') AS d FROM listed_sites ORDER BY d`)).map((r) => r.d);
      expect(await nights()).toEqual([NIGHTS[0]]);
      await db.readNights([NIGHTS[1], NIGHTS[2]]);
      expect(await nights()).toEqual([NIGHTS[1], NIGHTS[2]]);
      const [files] = await db.rows(`SELECT count(DISTINCT snapshot_date) AS n FROM files`);
      expect(files!.n).toBe(2);
    } finally {
      db.close();
    }
    rmSync(path.join(root, '_derived'), { recursive: true });
    // A limit too small for the first tables: a table out of memory is written again in the same
    // database under twice the limit, which then holds (each doubling said once), and the sets are
    // what a fresh database writes.
    const retries: string[] = [];
    const done = await deriveRoot(root, { memoryLimit: '12MB', memoryDoublings: 5, onMemoryRetry: (next) => retries.push(next) });
    expect(done.map((d) => d.outcome)).toEqual(['written', 'written', 'written']);
    expect(retries.length).toBeGreaterThan(0);
    expect(retries).toEqual(['24MB', '48MB', '96MB', '192MB', '384MB'].slice(0, retries.length));
    for (const date of NIGHTS) expect(await derivedAgainstViews(root, date)).toEqual([]);
  });

  it('the ranged tables (listed_sites, the root and seller-check counts, authorization_counts) written one range of subjects at a time equal their views\' rows', { timeout: 300_000 }, async () => {
    const root = copyRoot('ranged');
    // Two records per range: the nights' few sites fall into several ranges, each written on its own.
    const db = await openSnapshotDb(root, { derived: false, night: [NIGHTS[1]] });
    try {
      const ranges = await subjectRanges(db, NIGHTS[1], 2);
      expect(ranges.length).toBeGreaterThan(2);
      // Ordered, adjacent and unbounded at both ends: every subject is in exactly one.
      expect(ranges[0]![0]).toBeNull();
      expect(ranges.at(-1)![1]).toBeNull();
      for (let i = 1; i < ranges.length; i++) expect(ranges[i]![0]).toBe(ranges[i - 1]![1]);
      const subjects = (await db.rows(`SELECT DISTINCT subject FROM ads_records ORDER BY subject`)).map((r) => String(r.subject));
      const holding = (s: string) => ranges.filter(([lo, hi]) => (lo === null || s >= lo) && (hi === null || s < hi)).length;
      expect(subjects.map(holding)).toEqual(subjects.map(() => 1));
      // One range whole is the night whole.
      expect(await subjectRanges(db, NIGHTS[1])).toEqual([[null, null]]);
    } finally {
      db.close();
    }
    rmSync(path.join(root, '_derived'), { recursive: true });
    await deriveRoot(root, { recordsPerRange: 2 });
    for (const date of NIGHTS) expect(await derivedAgainstViews(root, date)).toEqual([]);
    const view = await openSnapshotDb(root);
    try {
      // Not an empty check: night 2 counts pairs of both parts (b.test's file is not text/plain: not valid).
      const rows = await view.rows(`SELECT DISTINCT named_by, "authorization" FROM authorization_counts_at(DATE '${NIGHTS[1]}') WHERE NOT all_ad_systems ORDER BY ALL`);
      expect(rows.map((r) => `${r.named_by} ${r.authorization}`)).toEqual(['ads.txt authorized', 'ads.txt nonparticipating', 'sellers.json authorized']);
    } finally {
      view.close();
    }
  });

  it('a path that is not a snapshot root exits 2 and creates nothing', { timeout: 120_000 }, async () => {
    const dir = tempDir();
    const missing = path.join(dir, 'nowhere');
    const r = await runCli(['derive', missing]);
    expect([r.code, existsSync(missing)]).toEqual([2, false]);
    expect(r.stderr).toMatch(/nowhere: no such directory \(a snapshot root is/);
    const empty = path.join(dir, 'empty');
    cpSync(path.join(out, 'targets'), path.join(empty, 'targets'), { recursive: true });
    const r2 = await runCli(['derive', out, empty]);
    expect(r2.code).toBe(2);
    expect(readdirSync(empty)).toEqual(['targets']);
  });

  it('a night crawled twice gets one current set, over both runs; reparse writes them for its run', async () => {
    const root = copyRoot('twice');
    night = 2;
    await crawl({ domains, outDir: root, snapshotDate: NIGHTS[2], runId: 'second-crawl', now: new Date(T0 + 2 * 86_400_000), checkpointSeconds: 0, fetch: fetchOptions });
    const m = (await readMarker(root, NIGHTS[2]))!;
    expect(m.runs).toContain('second-crawl');
    expect(m.runs).toHaveLength(2);
    expect([...derivedFiles(root).keys()].filter((f) => f.includes(`snapshot_date=${NIGHTS[2]}`) && f.endsWith('.parquet'))).toHaveLength(DERIVED_TABLES.length + SERIES_TABLES.length);
    // A night in two runs doubles rows in the views' joins, and the independent pooling SQL doubles them otherwise: the views only.
    expect(await derivedAgainstViews(root, NIGHTS[2], { skip: ['night_summary'] })).toEqual([]);
    const rebuilt = path.join(tempDir(), 'reparsed');
    const r = await reparse({ source: out, outDir: rebuilt, snapshotDate: NIGHTS[1] });
    expect((await readMarker(rebuilt, NIGHTS[1]))!.runs).toEqual([r.runId]);
    expect(await derivedAgainstViews(rebuilt, NIGHTS[1])).toEqual([]);
  }, 600_000);

  it('record changes: a file not observed the night before is compared with its last observation; a night crawled again re-derives the changes of the nights after it', { timeout: 600_000 }, async () => {
    const db = await openSnapshotDb(out);
    try {
      const rows = await db.rows(`SELECT snapshot_date::VARCHAR AS night, previous_date::VARCHAR AS previous, change, seller_account_id FROM record_changes WHERE subject = 'd.test' ORDER BY ALL`);
      expect(rows).toEqual([
        { night: NIGHTS[2], previous: NIGHTS[0], change: 'added', seller_account_id: '41' },
        { night: NIGHTS[2], previous: NIGHTS[0], change: 'removed', seller_account_id: '40' },
      ]);
    } finally {
      db.close();
    }
    const root = copyRoot('again-2');
    const before = (await readSeriesMarker(root, NIGHTS[2]))!;
    // Night 2 crawled again, d.test answering this time: its commit writes the series sets of nights 2 and 3 again.
    night = 2;
    await crawl({ domains, outDir: root, snapshotDate: NIGHTS[1], runId: 'night-2-again', now: new Date(T0 + 86_400_000), checkpointSeconds: 0, fetch: fetchOptions });
    const after = (await readSeriesMarker(root, NIGHTS[2]))!;
    expect(after.earlier).not.toBe(before.earlier);
    // The series sets against the definitions (night 2's own set, over two runs that disagree about d.test, is the twice test's).
    const own = DERIVED_TABLES.map((t) => t.name);
    for (const d of NIGHTS) expect(await derivedAgainstViews(root, d, { skip: own })).toEqual([]);
    const db2 = await openSnapshotDb(root);
    try {
      expect(db2.derived).toEqual({ nights: [...NIGHTS], underived: [], changesUnderived: [] });
      // Night 3's changes of d.test are now against night 2's file, which holds night 3's records.
      const [d] = await db2.rows(`SELECT count(*) AS n FROM record_changes WHERE subject = 'd.test' AND snapshot_date = '${NIGHTS[2]}'`);
      expect(d!.n).toBe(0);
    } finally {
      db2.close();
    }
    // A commit never derives a chain back to the first night (a root written before series sets):
    // without the night before's set it writes none, and the readers name the nights; derive writes them.
    rmSync(seriesMarkerPath(root, NIGHTS[0]));
    rmSync(seriesMarkerPath(root, NIGHTS[1]));
    expect((await deriveNight(root, NIGHTS[1])).outcome).toBe('current');
    expect([NIGHTS[0], NIGHTS[1]].map((d) => existsSync(seriesMarkerPath(root, d)))).toEqual([false, false]);
    const db3 = await openSnapshotDb(root);
    try {
      expect(db3.derived).toEqual({ nights: [...NIGHTS], underived: [], changesUnderived: [NIGHTS[0], NIGHTS[1]] });
    } finally {
      db3.close();
    }
    // Named by the report, whose figures are those it gives once derive has written them (every other set is current: nothing counted twice).
    const stale = await report([root], 'changes-stale');
    expect(stale.underived_nights).toEqual([NIGHTS[0], NIGHTS[1]]);
    expect((await deriveRoot(root)).map((x) => x.outcome)).toEqual(['written', 'written', 'current']);
    for (const d of NIGHTS) expect(await derivedAgainstViews(root, d, { skip: own })).toEqual([]);
    const fresh = await report([root], 'changes-fresh');
    expect(fresh.underived_nights).toEqual([]);
    const strip = ({ generated_at: _g, roots: _r, setup_sql: _s, derived_nights: _d, underived_nights: _u, missing: _m, ...rest }: ReportJson) => rest;
    expect(strip(fresh)).toEqual(strip(stale));
  });

  it('a night held by two roots read together is read from the definitions, and so are the changes of the nights after it', { timeout: 120_000 }, async () => {
    const other = copyRoot('night1-again');
    for (const f of readdirSync(path.join(other, '_runs'))) {
      const m = JSON.parse(readFileSync(path.join(other, '_runs', f), 'utf8')) as { snapshot_date: string };
      if (m.snapshot_date !== NIGHTS[0]) rmSync(path.join(other, '_runs', f));
    }
    const db = await openSnapshotDb([out, other]);
    try {
      // Nights 2 and 3 keep their own sets, but their record changes were derived after one root's
      // night 1 and are now read after both roots': from the definition.
      expect(db.derived).toEqual({ nights: [NIGHTS[1], NIGHTS[2]], underived: [NIGHTS[0]], changesUnderived: [...NIGHTS] });
      const [h] = await db.rows(`SELECT count(*) AS n FROM headline_figures_at(DATE '${NIGHTS[2]}')`);
      expect(h!.n).toBeGreaterThan(0);
      const [d] = await db.rows(`SELECT (SELECT count(*) FROM (SELECT * FROM record_changes EXCEPT ALL SELECT * FROM record_changes_defined)) AS extra,
        (SELECT count(*) FROM (SELECT * FROM record_changes_defined EXCEPT ALL SELECT * FROM record_changes)) AS lacking`);
      expect(d).toEqual({ extra: 0, lacking: 0 });
    } finally {
      db.close();
    }
  });
});
