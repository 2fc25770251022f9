import { cpSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../pipelines/crawl.js';
import { reparse } from '../pipelines/reparse.js';
import { openSnapshotDb } from '../src/sql/snapshot-db.js';
import { buildReport, type ReportJson } from '../src/report/index.js';
import { summaryKey, writeNightSummary, type NightSummary } from '../src/report/night-summary.js';
import { startLocalWeb, type LocalWeb } from './helpers/local-server.js';
import { createTestTls } from './helpers/tls.js';
import { useTempDirs } from './helpers/tmp.js';

/**
 * The night summary (src/report/night-summary.ts): written into the manifest at commit and by
 * reparse, equal to independent SQL over the views for its night, used by the report only where
 * it covers everything the views see, and the views answer for every other night — old roots
 * without a summary, stale keys, copied manifests, nights in two runs.
 */
const tempDir = useTempDirs('report-night-summary');
const T0 = Date.parse('2026-11-20T02:00:00Z');
const NIGHTS = [
  { date: '2026-11-20', now: new Date(T0) },
  { date: '2026-11-21', now: new Date(T0 + 86_400_000) },
] as const;
const TEXT = { 'content-type': 'text/plain' };
type Served = { status: number; body?: string; headers?: Record<string, string> };
const sellers = (ids: [string, string, string][]): Served => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ version: '1.0', sellers: ids.map(([seller_id, seller_type, domain]) => ({ seller_id, seller_type, name: seller_id, domain })) }),
});
const txt = (body: string): Served => ({ status: 200, body, headers: TEXT });

/** What each URL serves on each night; a missing night repeats the previous one. */
const SITE: Record<string, Served[]> = {
  // a.test and b.test both claim adx.test 1 DIRECT (pooled); b.test's 77 is not in sellers.json.
  'https://a.test/ads.txt': [txt('OWNERDOMAIN=a.test\nadx.test, 1, DIRECT\nadx.test, 5, RESELLER\n'), txt('OWNERDOMAIN=a.test\nadx.test, 1, DIRECT\nadx.test, 5, RESELLER\nadx.test, 2, DIRECT\n')],
  'https://b.test/ads.txt': [txt('OWNERDOMAIN=b.test\nadx.test, 1, DIRECT\nadx.test, 77, DIRECT\n')],
  'https://c.test/ads.txt': [{ status: 404 }, txt('adx.test, 1, DIRECT\n')],
  'https://adx.test/sellers.json': [sellers([['1', 'PUBLISHER', 'a.test'], ['5', 'PUBLISHER', 'x.test']]), sellers([['1', 'PUBLISHER', 'a.test'], ['2', 'PUBLISHER', 'a.test']])],
};

let web: LocalWeb;
let out: string;
let night = 0;

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
  const domains = path.join(dir, 'top.csv');
  writeFileSync(domains, '1,a.test\n2,b.test\n3,c.test\n');
  for (const [i, n] of NIGHTS.entries()) {
    night = i;
    await crawl({ domains, outDir: out, snapshotDate: n.date, now: n.now, checkpointSeconds: 0, fetch: { connectTo: web.connectTo, caCerts: [tls.caPem], retries: 0 } });
  }
}, 120_000);

afterAll(async () => {
  await web?.close();
});

function manifests(root: string): { file: string; m: Record<string, unknown> & { night_summary?: NightSummary } }[] {
  const dir = path.join(root, '_runs');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => ({ file: path.join(dir, f), m: JSON.parse(readFileSync(path.join(dir, f), 'utf8')) }));
}
function editManifests(root: string, edit: (m: Record<string, unknown> & { night_summary?: NightSummary }) => void): void {
  for (const { file, m } of manifests(root)) {
    edit(m);
    writeFileSync(file, JSON.stringify(m));
  }
}
function copyRoot(name: string): string {
  const to = path.join(tempDir(), name);
  cpSync(out, to, { recursive: true });
  return to;
}

/** consistency and pooling per night, written independently of night-summary.ts over the views. */
async function fromViews(root: string): Promise<{ consistency: Record<string, unknown>[]; pooling: Record<string, unknown>[] }> {
  const db = await openSnapshotDb(root);
  try {
    const consistency = await db.rows(`SELECT strftime(snapshot_date, '%Y-%m-%d') AS snapshot_date, count(*) AS records,
      sum(CASE WHEN seller_found OR seller_missing THEN 1 ELSE 0 END) AS checkable, sum(seller_missing::INT) AS missing,
      sum(CASE WHEN relationship_consistent THEN 0 WHEN relationship_consistent IS NULL THEN 0 ELSE 1 END) AS relationship_mismatch,
      sum(CASE WHEN owner_domain_consistent THEN 0 WHEN owner_domain_consistent IS NULL THEN 0 ELSE 1 END) AS owner_mismatch
      FROM seller_match_all WHERE file_valid GROUP BY 1 ORDER BY 1`);
    const pooling = await db.rows(`SELECT strftime(snapshot_date, '%Y-%m-%d') AS snapshot_date, count(*) AS pooled_ids, sum(n) AS records FROM (
      SELECT snapshot_date, ad_system_domain, seller_account_id, count(DISTINCT owner_domain) AS owners, count(*) AS n
      FROM seller_match WHERE relationship = 'DIRECT' GROUP BY ALL) WHERE owners >= 2 GROUP BY 1 ORDER BY 1`);
    return { consistency, pooling: pooling.map((r) => ({ ...r, records: Number(r.records) })) };
  } finally {
    db.close();
  }
}

/** The two figures of a report over `roots`, with the nights it read from summaries. */
async function figures(roots: string[]): Promise<{ consistency: Record<string, unknown>[]; pooling: Record<string, unknown>[]; summarized: string[] }> {
  const r = await buildReport({ roots, outDir: path.join(tempDir(), 'report') });
  const json = JSON.parse(readFileSync(r.json, 'utf8')) as ReportJson;
  const rows = (key: string) => json.sections.flatMap((s) => s.figures).find((f) => f.key === key)!.rows;
  const consistency = rows('consistency.over_time').map(({ missing_share: _m, ...rest }) => rest);
  return { consistency, pooling: rows('pooling.over_time'), summarized: json.summarized_nights };
}

describe('the night summary', () => {
  it('is written into each night\'s manifest at commit and equals the views over that night', async () => {
    const want = await fromViews(out);
    // The web's known answer, night 1: a (adx 1, adx 5), b (adx 1, adx 77); 77 missing; adx 5 is a
    // RESELLER of a PUBLISHER; b.test's owner is not adx 1's domain (a.test).
    expect(want.consistency[0]).toEqual({ snapshot_date: '2026-11-20', records: 4, checkable: 4, missing: 1, relationship_mismatch: 1, owner_mismatch: 1 });
    expect(want.pooling).toEqual([
      { snapshot_date: '2026-11-20', pooled_ids: 1, records: 2 },
      { snapshot_date: '2026-11-21', pooled_ids: 1, records: 3 },
    ]);
    const byNight = new Map(manifests(out).map(({ m }) => [m.snapshot_date, m]));
    for (const n of NIGHTS) {
      const m = byNight.get(n.date)!;
      const s = m.night_summary!;
      expect(s.key).toBe(summaryKey());
      expect([s.run_id, s.snapshot_date]).toEqual([m.run_id, n.date]);
      expect({ snapshot_date: n.date, ...s.consistency }).toEqual(want.consistency.find((r) => r.snapshot_date === n.date));
      expect({ snapshot_date: n.date, ...s.pooling }).toEqual(want.pooling.find((r) => r.snapshot_date === n.date));
    }
  });

  it('feeds the report, whose figures equal the views, and a root without summaries gives the same figures', async () => {
    const want = await fromViews(out);
    const withSummary = await figures([out]);
    expect(withSummary.summarized).toEqual(NIGHTS.map((n) => n.date));
    expect(withSummary.consistency).toEqual(want.consistency);
    expect(withSummary.pooling).toEqual(want.pooling);
    // A root committed before summaries existed: the views answer for every night.
    const old = copyRoot('old');
    editManifests(old, (m) => delete m.night_summary);
    const fromOld = await figures([old]);
    expect(fromOld.summarized).toEqual([]);
    expect([fromOld.consistency, fromOld.pooling]).toEqual([withSummary.consistency, withSummary.pooling]);
  });

  it('is ignored when its key is stale, it was copied from another run or night, or it is malformed', async () => {
    const want = await fromViews(out);
    const edits: ((m: Record<string, unknown> & { night_summary?: NightSummary }) => void)[] = [
      (m) => Object.assign(m.night_summary!, { key: 'an-older-views-sql', consistency: { ...m.night_summary!.consistency, records: 999 } }),
      (m) => Object.assign(m.night_summary!, { run_id: 'another-run', pooling: { pooled_ids: 999, records: 999 } }),
      (m) => Object.assign(m.night_summary!, { snapshot_date: '2026-01-01', pooling: { pooled_ids: 999, records: 999 } }),
      (m) => Object.assign(m.night_summary!, { consistency: { records: 'many' } }),
      (m) => (m.night_summary = 'not an object' as unknown as NightSummary),
    ];
    for (const [i, edit] of edits.entries()) {
      const root = copyRoot(`poisoned-${i}`);
      editManifests(root, edit);
      const got = await figures([root]);
      expect(got.summarized, `edit ${i}`).toEqual([]);
      expect([got.consistency, got.pooling], `edit ${i}`).toEqual([want.consistency, want.pooling]);
    }
  });

  it('is not used for a night in two runs (two roots, or two manifests in one root), and not written there', async () => {
    // The same night 1 in two roots: the views read both; night 2 is in one only.
    const other = copyRoot('night1-again');
    for (const { file, m } of manifests(other)) if (m.snapshot_date !== NIGHTS[0].date) rmSync(file);
    const got = await figures([out, other]);
    expect(got.summarized).toEqual([NIGHTS[1].date]);
    // The views see night 1's rows twice over (and join them with each other): not the summary's figures.
    expect(Number(got.consistency[0]!.records)).toBeGreaterThan(Number((await fromViews(out)).consistency[0]!.records));
    expect(got.consistency).toEqual((await fromViewsOf([out, other])).consistency);
    // A second manifest of night 1 in one root: no summary is written for either run.
    const two = copyRoot('two-runs');
    const first = manifests(two).find(({ m }) => m.snapshot_date === NIGHTS[0].date)!;
    const { night_summary: _s, ...copy } = first.m;
    writeFileSync(path.join(two, '_runs', 'second-run.json'), JSON.stringify({ ...copy, run_id: 'second-run' }));
    expect(await writeNightSummary(two, 'second-run')).toBeNull();
    expect(await writeNightSummary(two, String(first.m.run_id))).toBeNull();
    expect((await figures([two])).summarized).toEqual([NIGHTS[1].date]);
  });

  it('is computed again by reparse from the rebuilt tables', async () => {
    const rebuilt = path.join(tempDir(), 'reparsed');
    const r = await reparse({ source: out, outDir: rebuilt, snapshotDate: NIGHTS[1].date });
    const [m] = manifests(rebuilt);
    expect(m!.m.night_summary!.run_id).toBe(r.runId);
    const want = await fromViews(rebuilt);
    expect({ snapshot_date: NIGHTS[1].date, ...m!.m.night_summary!.consistency }).toEqual(want.consistency[0]);
    expect({ snapshot_date: NIGHTS[1].date, ...m!.m.night_summary!.pooling }).toEqual(want.pooling[0]);
  });
});

async function fromViewsOf(roots: string[]): Promise<{ consistency: Record<string, unknown>[] }> {
  const db = await openSnapshotDb(roots);
  try {
    const consistency = await db.rows(`SELECT strftime(snapshot_date, '%Y-%m-%d') AS snapshot_date, count(*) AS records,
      count(*) FILTER (WHERE seller_found OR seller_missing) AS checkable, count(*) FILTER (WHERE seller_missing) AS missing,
      count(*) FILTER (WHERE relationship_consistent = false) AS relationship_mismatch, count(*) FILTER (WHERE owner_domain_consistent = false) AS owner_mismatch
      FROM seller_match GROUP BY 1 ORDER BY 1`);
    return { consistency };
  } finally {
    db.close();
  }
}
