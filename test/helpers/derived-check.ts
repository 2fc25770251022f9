/** Checks shared by the derived-table tests on a series (derived.test.ts) and on the demo (headline.test.ts). */
import path from 'node:path';
import { openSnapshotDb } from '../../src/sql/snapshot-db.js';
import { DERIVED_TABLES, OWNER_TABLE, definedAt, readMarker, readSeriesMarker } from '../../src/sql/derived.js';
import { createOwnerTable } from '../../src/report/owners.js';
import type { ReportJson } from '../../src/report/index.js';

/**
 * Each derived table's rows for `date` (its part, read directly) against its view's rows from the
 * definitions (a snapshot opened without derived sets); night_summary against pooling written
 * independently over seller_match. Returns the differences (none: []).
 */
export async function derivedAgainstViews(root: string, date: string, o: { skip?: readonly string[] } = {}): Promise<string[]> {
  const m = (await readMarker(root, date))!;
  const db = await openSnapshotDb(root, { derived: false });
  const diffs: string[] = [];
  try {
    for (const t of DERIVED_TABLES.filter((x) => !o.skip?.includes(x.name))) {
      const part = `(SELECT * EXCLUDE (vocabulary_key) FROM read_parquet('${path.join(root, m.tables[t.name]!)}'))`;
      if (t.name.startsWith('pooled_seller_')) await createOwnerTable(db.connection, (c) => `${c} = DATE '${date}'`);
      const want =
        t.name === 'pooled_seller_ids'
          ? `(${pooledIds(date)})`
          : t.name === 'pooled_seller_top'
          ? `(${pooledTop(date)})`
          : t.name === 'night_summary'
          ? `(SELECT CAST('${date}' AS DATE) AS snapshot_date, count(*)::BIGINT AS pooled_ids, coalesce(sum(n), 0)::BIGINT AS pooled_records FROM (
               SELECT ad_system_domain, seller_account_id, count(DISTINCT owner_domain) AS owners, count(*) AS n
               FROM seller_match WHERE relationship = 'DIRECT' AND snapshot_date = '${date}' GROUP BY ALL) WHERE owners >= 2)`
          : t.view?.endsWith('_at')
            ? `(SELECT * FROM ${definedAt(t.view)}(DATE '${date}'))`
            : `(SELECT * FROM ${t.view}_defined WHERE snapshot_date = '${date}')`;
      const [d] = await db.rows(`SELECT (SELECT count(*) FROM ${part}) AS n, (SELECT count(*) FROM (SELECT * FROM ${part} EXCEPT ALL SELECT * FROM ${want})) AS extra,
        (SELECT count(*) FROM (SELECT * FROM ${want} EXCEPT ALL SELECT * FROM ${part})) AS lacking`);
      if (d!.extra !== 0 || d!.lacking !== 0) diffs.push(`${t.name} ${date}: ${JSON.stringify(d)}`);
      // Tables every night has rows in (a night may have no app and no parse issue).
      if (['file_scopes', 'listed_sites', 'headline_figures', 'night_summary'].includes(t.name) && d!.n === 0) diffs.push(`${t.name} ${date}: no rows`);
    }
    // The series set: the night's record changes, and the carry (each file's last observation
    // before the night, for the files observed before it and not on it) from file_observations.
    const s = await readSeriesMarker(root, date);
    if (!s) diffs.push(`no series set for ${date}`);
    const series = {
      record_changes: `(SELECT * FROM record_changes_defined WHERE snapshot_date = '${date}')`,
      file_observation_carry: `(SELECT DATE '${date}' AS snapshot_date, subject, file_kind, max(snapshot_date) AS observed_date, arg_max(status, snapshot_date) AS status, arg_max(sha256, snapshot_date) AS sha256
         FROM file_observations o WHERE file_kind IN ('ads.txt', 'app-ads.txt') AND snapshot_date < '${date}'
           AND NOT EXISTS (SELECT 1 FROM file_observations n WHERE n.snapshot_date = '${date}' AND n.subject = o.subject AND n.file_kind = o.file_kind)
         GROUP BY ALL)`,
    };
    for (const [name, want] of Object.entries(series).filter(([n]) => s && !o.skip?.includes(n))) {
      const part = `(SELECT * EXCLUDE (vocabulary_key) FROM read_parquet('${path.join(root, s!.tables[name]!)}'))`;
      const [d] = await db.rows(`SELECT (SELECT count(*) FROM (SELECT * FROM ${part} EXCEPT ALL SELECT * FROM ${want})) AS extra,
        (SELECT count(*) FROM (SELECT * FROM ${want} EXCEPT ALL SELECT * FROM ${part})) AS lacking`);
      if (d!.extra !== 0 || d!.lacking !== 0) diffs.push(`${name} ${date}: ${JSON.stringify(d)}`);
    }
  } finally {
    db.close();
  }
  return diffs;
}


/**
 * The latest night's counts of the shared words in `json`'s figures: section 4's series and the
 * root scope's total of its per-ad-system table, against the headline's root records, checkable
 * root records and seller ids not found. Returns [got, want] pairs that differ (none: []).
 */
export function oneNumber(json: ReportJson): string[] {
  const rows = (key: string) => json.sections.flatMap((s) => s.figures).find((f) => f.key === key)!.rows;
  const h = json.headline;
  const want = [h.direct_record_share_root.denominator, h.seller_id_not_found_root.denominator, h.seller_id_not_found_root.n];
  const latest = json.window.nights.at(-1);
  const series = rows('consistency.over_time').find((r) => r.snapshot_date === latest);
  const total = rows('consistency.by_ad_system').find((r) => r.scope === 'root' && r.ad_system_domain === null);
  const out: string[] = [];
  for (const [name, r] of [['consistency.over_time', series], ['consistency.by_ad_system total', total]] as const) {
    const got = r ? [r.records, r.checkable, r.missing] : null;
    if (JSON.stringify(got) !== JSON.stringify(want)) out.push(`${name}: ${JSON.stringify(got)} ≠ headline ${JSON.stringify(want)}`);
  }
  for (const r of rows('consistency.sellers_location_effect')) {
    if (r.checkable_root_records_headline !== h.seller_id_not_found_root.denominator) out.push(`sellers_location_effect beside: ${String(r.checkable_root_records_headline)}`);
  }
  return out;
}

/** pooled_seller_ids' rows for `date`, written apart from pooledIdsSql: each DIRECT record of a valid file, its owner reduced. */
function pooledIds(date: string): string {
  return `WITH claims AS (
    SELECT r.ad_system_domain, r.seller_account_id, r.subject, coalesce(d.owner_domain, coalesce(o.owner_domain, r.subject)) AS owner
    FROM ads_records r
    JOIN files f ON f.snapshot_date = r.snapshot_date AND f.subject = r.subject AND f.file_kind = r.file_kind AND f.valid
    LEFT JOIN file_owner_domains o ON o.snapshot_date = r.snapshot_date AND o.subject = r.subject AND o.file_kind = r.file_kind
    LEFT JOIN ${OWNER_TABLE} d ON d.owner = coalesce(o.owner_domain, r.subject)
    WHERE r.snapshot_date = '${date}' AND r.relationship = 'DIRECT')
  SELECT DATE '${date}' AS snapshot_date, ad_system_domain, seller_account_id, count(DISTINCT (subject, owner))::BIGINT AS sites, count(DISTINCT owner) AS owners,
         list_sort(list(DISTINCT owner))[1:5] AS sample_owners, count(*)::BIGINT AS records
  FROM claims GROUP BY ALL HAVING count(DISTINCT owner) >= 2`;
}

/** pooled_seller_top's rows for `date`: the 25 pooled ids with most owners, and their sellers.json entries per owner. */
function pooledTop(date: string): string {
  return `WITH top AS (
    SELECT * FROM (${pooledIds(date)}) ORDER BY owners DESC, sites DESC, ad_system_domain, seller_account_id LIMIT 25
  ), entry AS (
    -- Per id and owner of its DIRECT records (valid files, as seller_match): whether some record's owner matches the entry's domain.
    SELECT m.ad_system_domain, m.seller_account_id, coalesce(d.owner_domain, m.owner_domain) AS owner,
           bool_or(coalesce(m.owner_domain_consistent, false)) AS matches, min(m.seller_name) AS seller_name, min(m.seller_domain) AS seller_domain
    FROM seller_match m LEFT JOIN ${OWNER_TABLE} d ON d.owner = m.owner_domain
    WHERE m.snapshot_date = '${date}' AND m.relationship = 'DIRECT' GROUP BY ALL
  )
  SELECT t.snapshot_date, t.ad_system_domain, t.seller_account_id, min(e.seller_name) AS seller_name, min(e.seller_domain) AS seller_domain,
         t.sites, t.owners, count(*) FILTER (WHERE e.matches) AS owners_matching_seller_domain, t.sample_owners
  FROM top t LEFT JOIN entry e ON e.ad_system_domain = t.ad_system_domain AND e.seller_account_id = t.seller_account_id
  GROUP BY t.snapshot_date, t.ad_system_domain, t.seller_account_id, t.sites, t.owners, t.sample_owners`;
}
