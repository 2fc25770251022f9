/**
 * The headline figures are one set of numbers: `adsnap demo` (the simulated web crawled, its
 * summary printed, its report written), then `adsnap sql` over the same snapshot, and report.json
 * must give the same values, in the same words; and independent SQL written from the definitions
 * of docs/reference/figures.md over the base tables only (none of the figures' views) must give
 * them too.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openSnapshotDb } from '../src/sql/snapshot-db.js';
import { HEADLINE_KEYS, headlineLines, headlineObject, type HeadlineFigure, type HeadlineKey } from '../src/sql/headline.js';
import type { ReportJson } from '../src/report/index.js';
import { runCli } from './helpers/run-cli.js';
import { useTempDirs } from './helpers/tmp.js';
import { derivedAgainstViews, oneNumber } from './helpers/derived-check.js';

const tempDir = useTempDirs('headline');
let out: string;
let summary: string;
let night: string;

beforeAll(async () => {
  out = path.join(tempDir(), 'out');
  const demo = await runCli(['demo', '--out', out]);
  expect(demo.code, demo.stderr).toBe(0);
  summary = demo.stdout;
  night = /Snapshot (\d{4}-\d{2}-\d{2}):/.exec(summary)![1]!;
}, 600_000);

/** Over the base tables only: the definitions of docs/reference/figures.md, written without the figures' views. */
const INDEPENDENT = `
WITH night AS (SELECT CAST($1 AS DATE) AS d),
sites AS (SELECT DISTINCT target AS site FROM targets WHERE target_kind = 'domain' AND snapshot_date = (SELECT d FROM night)),
recs AS (
  SELECT r.*, (r.ad_system_domain = 'placeholder.example.com' AND lower(r.seller_account_id) = 'placeholder') AS ph
  FROM ads_records r WHERE r.snapshot_date = (SELECT d FROM night)
),
root_files AS (
  SELECT f.subject AS site, f.valid, f.status,
    EXISTS (SELECT 1 FROM recs r WHERE r.subject = f.subject AND r.file_kind = 'ads.txt' AND NOT r.ph) AS has_real,
    EXISTS (SELECT 1 FROM recs r WHERE r.subject = f.subject AND r.file_kind = 'ads.txt' AND r.ph) AS has_ph
  FROM files f JOIN sites s ON s.site = f.subject
  WHERE f.file_kind = 'ads.txt' AND f.snapshot_date = (SELECT d FROM night) AND f.status <> 'html'
),
root_recs AS (SELECT r.* FROM recs r JOIN sites s ON s.site = r.subject WHERE r.file_kind = 'ads.txt' AND NOT r.ph),
root_systems AS (SELECT DISTINCT ad_system_domain FROM root_recs),
sellers_ok AS (
  SELECT subject AS ad_system_domain FROM files
  WHERE file_kind = 'sellers.json' AND status = 'ok' AND snapshot_date = (SELECT d FROM night)
),
ids AS (SELECT DISTINCT ad_system_domain, lower(trim(seller_id, ' ' || chr(9) || chr(10) || chr(11) || chr(12) || chr(13))) AS id FROM sellers WHERE snapshot_date = (SELECT d FROM night)),
checkable AS (
  SELECT r.ad_system_domain, lower(trim(r.seller_account_id, ' ' || chr(9) || chr(10) || chr(11) || chr(12) || chr(13))) AS id
  FROM root_recs r SEMI JOIN sellers_ok o ON o.ad_system_domain = r.ad_system_domain
),
apps_night AS (SELECT DISTINCT store_url, subject FROM apps WHERE snapshot_date = (SELECT d FROM night))
SELECT
  (SELECT count(*) FROM sites) AS listed_sites,
  (SELECT count(*) FROM root_files WHERE has_real) AS declaring,
  (SELECT count(*) FROM root_files WHERE has_real AND valid) AS valid,
  (SELECT count(*) FROM root_files WHERE has_ph AND NOT has_real) AS placeholder_only,
  (SELECT count(*) FROM apps_night) AS listed_apps,
  (SELECT count(*) FROM apps_night a WHERE EXISTS (SELECT 1 FROM recs r WHERE r.subject = a.subject AND r.file_kind = 'app-ads.txt' AND NOT r.ph)) AS apps_declaring,
  (SELECT count(*) FROM root_systems) AS ad_systems,
  (SELECT count(DISTINCT coalesce(c.company, s.ad_system_domain)) FROM root_systems s
     LEFT JOIN (SELECT ad_system_domain, min(company) AS company FROM ad_system_companies GROUP BY 1) c USING (ad_system_domain)) AS companies,
  (SELECT count(*) FROM root_recs) AS root_records,
  (SELECT count(*) FROM root_recs WHERE relationship = 'DIRECT') AS direct,
  (SELECT count(DISTINCT v.subject) FROM ads_variables v JOIN root_files f ON f.site = v.subject AND f.has_real
     WHERE v.snapshot_date = (SELECT d FROM night) AND v.file_kind = 'ads.txt' AND v.name = 'OWNERDOMAIN') AS ownerdomain,
  (SELECT count(*) FROM root_systems s SEMI JOIN sellers_ok o USING (ad_system_domain)) AS readable,
  (SELECT count(*) FROM checkable) AS checkable,
  (SELECT count(*) FROM checkable c WHERE NOT EXISTS (SELECT 1 FROM ids i WHERE i.ad_system_domain = c.ad_system_domain AND i.id = c.id)) AS not_found`;

/** Wilson 95% (Wilson 1927), written again here from the formula. */
function wilson(k: number, n: number): [number, number] {
  const z = 1.959963984540054;
  const p = k / n;
  const centre = p + (z * z) / (2 * n);
  const half = z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  const d = 1 + (z * z) / n;
  return [Math.max(0, (centre - half) / d), Math.min(1, (centre + half) / d)];
}

describe('headline figures: the demo summary, adsnap sql and report.json agree', () => {
  let viaSql: Record<HeadlineKey, HeadlineFigure>;
  let report: ReportJson;

  beforeAll(async () => {
    const sql = await runCli(['sql', out, '--format', 'json', '-c', `SELECT * FROM headline_figures WHERE snapshot_date = DATE '${night}'`]);
    expect(sql.code, sql.stderr).toBe(0);
    viaSql = headlineObject(JSON.parse(sql.stdout) as Record<string, unknown>[]);
    report = JSON.parse(await readFile(path.join(out, 'report', 'report.json'), 'utf8')) as ReportJson;
  });

  it('report.json has every stable key, each with the same value, n, denominator, interval, scope and definition as adsnap sql', () => {
    expect(Object.keys(report.headline)).toEqual([...HEADLINE_KEYS]);
    expect(report.headline).toEqual(viaSql);
    for (const key of HEADLINE_KEYS) {
      const f = report.headline[key];
      expect(f.scope, key).not.toBe('');
      expect(f.definition, key).not.toBe('');
      if (f.denominator === undefined) expect(Object.keys(f).sort(), key).toEqual(['definition', 'scope', 'value']);
      else expect(f.value, key).toBe(f.n! / f.denominator);
    }
  });

  it('the summary prints the same figures in the same words', () => {
    for (const line of headlineLines(viaSql)) expect(summary).toContain(line);
  });

  it('independent SQL from the definitions gives the same numbers', async () => {
    const db = await openSnapshotDb(out);
    let x: Record<string, number>;
    try {
      x = (await db.rows(INDEPENDENT, [night]))[0] as Record<string, number>;
    } finally {
      db.close();
    }
    const share = (key: HeadlineKey, n: number, d: number) => {
      const f = report.headline[key];
      expect([f.n, f.denominator], key).toEqual([n, d]);
      const [lo, hi] = wilson(n, d);
      expect(f.ci95![0], key).toBeCloseTo(lo, 12);
      expect(f.ci95![1], key).toBeCloseTo(hi, 12);
    };
    share('adstxt_declaring', x.declaring!, x.listed_sites!);
    share('adstxt_valid', x.valid!, x.listed_sites!);
    share('adstxt_placeholder_only_sites', x.placeholder_only!, x.listed_sites!);
    share('app_ads_declaring', x.apps_declaring!, x.listed_apps!);
    share('direct_record_share_root', x.direct!, x.root_records!);
    share('ownerdomain_declaring', x.ownerdomain!, x.declaring!);
    share('sellers_json_readable_ad_systems', x.readable!, x.ad_systems!);
    share('seller_id_not_found_root', x.not_found!, x.checkable!);
    expect(report.headline.ad_systems_distinct_root.value).toBe(x.ad_systems);
    expect(report.headline.ad_companies_distinct_root.value).toBe(x.companies);
  });

  it('counts what the simulated web serves: invalid_content_type files declare, the placeholder-only site does not', async () => {
    const db = await openSnapshotDb(out);
    try {
      const [r] = await db.rows(
        `SELECT count(*) FILTER (WHERE ads_txt_status = 'invalid_content_type' AND declaring) AS wrong_type_declaring,
                count(*) FILTER (WHERE ads_txt_status = 'invalid_content_type') AS wrong_type,
                count(*) FILTER (WHERE ads_txt_status = 'placeholder' AND NOT declaring AND placeholder_only) AS placeholder_only,
                count(*) FILTER (WHERE ads_txt_status = 'html' AND declaring) AS html_declaring
         FROM listed_sites WHERE snapshot_date = CAST($1 AS DATE)`,
        [night],
      );
      expect(r!.wrong_type).toBeGreaterThan(0);
      expect(r!.wrong_type_declaring).toBe(r!.wrong_type);
      expect(r!.placeholder_only).toBeGreaterThan(0);
      expect(r!.html_declaring).toBe(0);
    } finally {
      db.close();
    }
    // Declaring minus valid are exactly the files served with the wrong Content-Type or cut.
    expect(report.headline.adstxt_declaring.n! - report.headline.adstxt_valid.n!).toBeGreaterThan(0);
  });

  it('one number: section 4 counts the headline\'s root records, checkable and not found (issue 39)', () => {
    expect(report.window.nights).toEqual([night]);
    expect(oneNumber(report)).toEqual([]);
  });

  it('the demo\'s commit wrote its derived tables, each equal to its view\'s rows, and the report read them (issue 34)', async () => {
    expect(report.derived_nights).toEqual([night]);
    expect(await derivedAgainstViews(out, night)).toEqual([]);
  });
});
