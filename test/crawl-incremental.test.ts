import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openSnapshotDb } from '../src/sql/snapshot-db.js';
import { FILE_STATUSES } from '../schemas/tables.js';
import { startSimweb, type Simweb } from '../src/simweb/index.js';
import { repoRoot } from './helpers/corpus.js';
import { runCli } from './helpers/run-cli.js';
import { useTempDirs } from './helpers/tmp.js';

const tempDir = useTempDirs('incremental');

/**
 * Incremental snapshots (ads.txt 1.1 §3.1, §3.6; RFC 9309 §2.4): night 1 on the simulated
 * web, then night 2 on the same web where 5% of the ads.txt files changed (simweb epoch 1).
 */
const DAY = 86_400_000;
let tmp: string;
let list: string;
let out: string;
let night1: Date;

async function crawlNight(epoch: number, date: string, extra: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const web: Simweb = await startSimweb({ hosts: 120, apps: 0, hostile: false, epoch });
  try {
    if (!list) {
      list = path.join(tmp, 'domains.txt');
      writeFileSync(list, [...web.domains()].join('\n') + '\n');
    }
    // A site that is unreachable on night 2 only (its connection is refused).
    return await runCli(['crawl', '--domains', list, '--out', out, '--snapshot-date', date, '--progress', 'none', '--no-sellers', '--concurrency', '16', ...extra, ...web.connectArgs]);
  } finally {
    await web.close();
  }
}

const sqlList = (xs: readonly string[]) => `[${xs.map((x) => `'${x}'`).join(', ')}]`;
const at = (offsetMs: number) => new Date(night1.getTime() + offsetMs).toISOString();

beforeAll(async () => {
  tmp = tempDir();
  out = path.join(tmp, 'out');
  night1 = new Date();
  const r = await crawlNight(0, '2026-11-21', []);
  expect(r.code, r.stderr).toBe(0);
}, 120_000);

describe('incremental snapshots', () => {
  it('keeps every fetched body content-addressed under DIR/_bodies', () => {
    const dirs = readdirSync(path.join(out, '_bodies')).filter((d) => /^[0-9a-f]{2}$/.test(d));
    expect(dirs.length).toBeGreaterThan(10);
  });

  it('a week later: every file asked again (304 re-reads the earlier body), the 5% that changed fetched again; status is the content', async () => {
    const r = await crawlNight(1, '2026-11-22', ['--now', at(8 * DAY)]);
    expect(r.code, r.stderr).toBe(0);
    const db = await openSnapshotDb(out);
    try {
      const byHow = Object.fromEntries(
        (await db.rows(`SELECT obtained, count(*) AS n FROM files WHERE snapshot_date = DATE '2026-11-22' AND file_kind = 'ads.txt' GROUP BY 1`)).map((x) => [x.obtained, x.n]),
      );
      expect(byHow.revalidated).toBeGreaterThan(10); // 304 to If-None-Match: the earlier body read again
      expect(byHow.fetched ?? 0).toBeGreaterThan(0); // the 5% that changed, and the 404s
      expect(Object.keys(byHow).sort()).toEqual(['fetched', 'revalidated']);
      // The content's status is the same on both nights for every file that did not change.
      const drift = await db.rows(`
        SELECT f2.subject, f1.status AS s1, f2.status AS s2 FROM files f2
        JOIN files f1 ON f1.subject = f2.subject AND f1.file_kind = f2.file_kind AND f1.snapshot_date = DATE '2026-11-21'
        WHERE f2.snapshot_date = DATE '2026-11-22' AND f2.obtained = 'revalidated' AND (f1.status <> f2.status OR f1.valid <> f2.valid OR f1.bytes <> f2.bytes)`);
      expect(drift).toEqual([]);
      // A reused file still has its records in this snapshot, identical to night 1's.
      const same = await db.rows(`
        SELECT f2.subject,
               (SELECT count(*) FROM ads_records r WHERE r.snapshot_date = DATE '2026-11-21' AND r.subject = f2.subject) AS n1,
               (SELECT count(*) FROM ads_records r WHERE r.snapshot_date = DATE '2026-11-22' AND r.subject = f2.subject) AS n2,
               f2.records, f2.sha256 = f1.sha256 AS same_body
        FROM files f2 JOIN files f1 ON f1.subject = f2.subject AND f1.file_kind = f2.file_kind AND f1.snapshot_date = DATE '2026-11-21'
        WHERE f2.snapshot_date = DATE '2026-11-22' AND f2.file_kind = 'ads.txt' AND f2.obtained = 'revalidated'`);
      expect(same.length).toBeGreaterThan(10);
      for (const row of same) expect(row, String(row.subject)).toMatchObject({ n2: row.n1, records: row.n1, same_body: true });
      const [robots] = await db.rows(`SELECT count(*) AS n FROM files WHERE snapshot_date = DATE '2026-11-22' AND file_kind = 'robots.txt' AND obtained = 'revalidated' AND status = 'ok'`);
      expect(robots!.n).toBeGreaterThan(10);
      // One clock: every time this night recorded is on the --now clock (a week on), the
      // requests' start times as the files' fetch times, never the real one.
      const [times] = await db.rows(`SELECT min(epoch_ms(started_at)) AS first, max(epoch_ms(started_at)) AS last, (SELECT min(epoch_ms(fetched_at)) FROM files WHERE snapshot_date = DATE '2026-11-22' AND obtained = 'fetched') AS fetched FROM fetches WHERE snapshot_date = DATE '2026-11-22'`);
      const week = night1.getTime() + 8 * DAY;
      expect(Number(times!.first)).toBeGreaterThanOrEqual(week);
      expect(Number(times!.last)).toBeLessThan(week + 600_000);
      expect(Number(times!.fetched)).toBeGreaterThanOrEqual(week);
    } finally {
      db.close();
    }
  }, 120_000);

  it('with --reuse-fresh, within freshness nothing is requested again (reused)', async () => {
    const r = await crawlNight(1, '2026-11-23', ['--now', at(8 * DAY + 3_600_000), '--reuse-fresh']);
    expect(r.code, r.stderr).toBe(0);
    const db = await openSnapshotDb(out);
    try {
      const [files] = await db.rows(`SELECT count(*) FILTER (WHERE obtained = 'reused') AS reused, count(*) FILTER (WHERE list_contains(${sqlList(FILE_STATUSES)}, status)) AS content, count(*) AS n FROM files WHERE snapshot_date = DATE '2026-11-23' AND file_kind IN ('ads.txt', 'robots.txt')`);
      expect(files!.reused).toBeGreaterThan((files!.n as number) / 2);
      expect(files!.content).toBe(files!.n); // what the content is, not how it was obtained
      const [fetches] = await db.rows(`SELECT count(*) AS n FROM fetches WHERE snapshot_date = DATE '2026-11-23' AND file_kind = 'ads.txt'`);
      const [fetches1] = await db.rows(`SELECT count(*) AS n FROM fetches WHERE snapshot_date = DATE '2026-11-21' AND file_kind = 'ads.txt'`);
      expect(fetches!.n).toBeLessThan((fetches1!.n as number) / 2);
      // A 404 is an answer with a lifetime (7 days for ads.txt, 24 h for robots.txt): an hour later
      // the site is not asked again and the file stays not_found, with its age.
      const absent = await db.rows(`
        SELECT f3.file_kind, f3.subject, f3.status, f3.obtained, f3.http_status, f3.age_days, f3.fetched_at = f2.fetched_at AS same_fetch,
               (SELECT count(*) FROM fetches x WHERE x.snapshot_date = DATE '2026-11-23' AND x.subject = f3.subject AND x.file_kind = f3.file_kind) AS requests
        FROM files f3 JOIN files f2 ON f2.subject = f3.subject AND f2.file_kind = f3.file_kind AND f2.snapshot_date = DATE '2026-11-22'
        WHERE f3.snapshot_date = DATE '2026-11-23' AND f2.status = 'not_found' AND f3.file_kind IN ('ads.txt', 'robots.txt')`);
      expect(absent.filter((x) => x.file_kind === 'ads.txt').length).toBeGreaterThan(0);
      for (const row of absent) {
        expect(row, `${row.file_kind} ${row.subject}`).toMatchObject({ status: 'not_found', obtained: 'reused', http_status: 404, same_fetch: true, requests: 0 });
        expect(Number(row.age_days)).toBeCloseTo(1 / 24, 2);
      }
    } finally {
      db.close();
    }
  }, 120_000);

  it('ads.txt 1.1 §3.1: a site that fails is carried forward from its last good copy, with its age', async () => {
    const db1 = await openSnapshotDb(out);
    const [{ subject: down, records }] = (await db1.rows(
      `SELECT subject, records FROM files WHERE snapshot_date = DATE '2026-11-22' AND file_kind = 'ads.txt' AND obtained = 'revalidated' AND via = 'root' ORDER BY subject LIMIT 1`,
    )) as [{ subject: string; records: number }];
    db1.close();
    // Two days after that revalidation, the site refuses connections.
    const r = await crawlNight(1, '2026-11-24', ['--now', at(10 * DAY), '--connect-to', `${down}:443:127.0.0.1:1`, '--connect-to', `${down}:80:127.0.0.1:1`]);
    expect(r.code, r.stderr).toBe(0);
    const db = await openSnapshotDb(out);
    try {
      const [carried] = await db.rows(`SELECT status, obtained, valid, age_days, records FROM files WHERE snapshot_date = DATE '2026-11-24' AND subject = '${down}' AND file_kind = 'ads.txt'`);
      expect(carried).toMatchObject({ status: 'ok', obtained: 'carried_forward', valid: true, records });
      expect(Number(carried!.age_days)).toBeGreaterThan(1.9);
      expect(Number(carried!.age_days)).toBeLessThan(2.1);
      const [refused] = await db.rows(`SELECT error FROM fetches WHERE snapshot_date = DATE '2026-11-24' AND host = '${down}' AND file_kind = 'ads.txt' LIMIT 1`);
      expect(refused!.error).toBe('connect');
      const [n] = await db.rows(`SELECT count(*) AS n FROM ads_records WHERE snapshot_date = DATE '2026-11-24' AND subject = '${down}'`);
      expect(n!.n).toBe(records);
    } finally {
      db.close();
    }
  }, 120_000);
});

describe('store pages (spec-decisions: a store URL at most once a week across snapshots)', () => {
  it('a listing read two days ago is not fetched again; one read eight days ago is', async () => {
    const fixtures = path.join(repoRoot, 'data-samples', 'simweb-fixtures');
    const web = await startSimweb({ hosts: 1, apps: 6, hostile: false, fixturesDir: fixtures });
    const storeOut = path.join(tmp, 'stores');
    const apps = path.join(tmp, 'apps.txt');
    writeFileSync(apps, [...web.apps()].join('\n') + '\n' + readFileSync(path.join(fixtures, 'apps.txt'), 'utf8'));
    const start = Date.now();
    const night = (date: string, offsetMs: number) =>
      runCli(['crawl', '--apps', apps, '--out', storeOut, '--snapshot-date', date, '--progress', 'none', '--no-sellers', '--now', new Date(start + offsetMs).toISOString(), ...web.connectArgs]);
    try {
      for (const [date, offset] of [['2026-11-21', 0], ['2026-11-23', 2 * DAY], ['2026-11-29', 8 * DAY]] as const) {
        const r = await night(date, offset);
        expect(r.code, r.stderr).toBe(0);
      }
      const db = await openSnapshotDb(storeOut);
      try {
        const n = Object.fromEntries(
          (await db.rows(`SELECT strftime(snapshot_date, '%Y-%m-%d') AS d, count(*) FILTER (WHERE file_kind = 'store_page') AS pages FROM fetches GROUP BY 1`)).map((x) => [x.d, x.pages]),
        );
        expect(n['2026-11-21']).toBeGreaterThan(3);
        expect(n['2026-11-23'] ?? 0).toBe(0); // within the week: reused from the kept body
        expect(n['2026-11-29']).toBe(n['2026-11-21']); // a week later: read again
        // The reused listing still gives every app its developer URL and app-ads.txt host.
        const apps1 = await db.rows(`SELECT store_url, developer_url, subject, status FROM apps WHERE snapshot_date = DATE '2026-11-21' ORDER BY store_url`);
        const apps2 = await db.rows(`SELECT store_url, developer_url, subject, status FROM apps WHERE snapshot_date = DATE '2026-11-23' ORDER BY store_url`);
        expect(apps2.map((a) => [a.store_url, a.developer_url])).toEqual(apps1.map((a) => [a.store_url, a.developer_url]));
      } finally {
        db.close();
      }
    } finally {
      await web.close();
    }
  }, 180_000);
});
