/**
 * The figures of `adsnap report`: each one a SQL query over the shipped views (sql/views.sql),
 * with a stable key, a title, what it counts, and how to draw it. The queries read the nights in
 * the report's window through two macros set up by `setupSql` (also written into report.json),
 * so that any figure can be run again with `adsnap sql ROOT… -c "<setup>; <figure sql>"`.
 *
 * Definitions used throughout (the page says them too):
 * - a site *serves* an ads.txt when its file's content was a text file with records or a
 *   placeholder (`files.status` 'ok', 'placeholder' or 'too_large'), whatever the provenance;
 *   *valid* is `files.valid` (served as text, parsed, not cut);
 * - "latest night" is the last night in the window;
 * - the rank bucket comes from `targets.rank` (the list's rank), cut at `--rank-buckets`;
 * - a CTV app is one of a store all of whose listings are TV apps, or a Samsung TV listing (its
 *   URL tells it from the Galaxy Store's): STORE_SCREEN below, over store-id.ts's StoreName;
 * - pooling's owners are registrable domains (owners.ts: a table setup_sql loads from a file
 *   beside report.json).
 */
import type { StoreName } from '../sources/store-id.js';
import { consistencyNightsSql, poolingNightsSql, type NightFilter } from './night-summary.js';
import { OWNER_TABLE } from './owners.js';

export type ChartKind = 'line' | 'bar' | 'hbar' | 'stacked';

export interface ChartSpec {
  kind: ChartKind;
  /** Field on the x axis (line: a date; bar: a category; hbar: the value). */
  x: string;
  y: string;
  /** Field that splits the series or the stack. */
  color?: string;
  xTitle: string;
  yTitle: string;
  /** Values are shares in [0, 1]: the axis is drawn in percent. */
  percent?: boolean;
  /** Several columns drawn as series of one chart (their names become the legend); `y` is then ignored. */
  fold?: string[];
  /**
   * The chart draws only the rows whose `field` is one of the first `n` values of that field in
   * row order (the table, the CSV and report.json keep every row): 112 catalogue agents are a
   * table, not a legend.
   */
  top?: { field: string; n: number };
  /**
   * The chart draws only the rows `keep` accepts (before `top`); with `per`, every row of a value
   * of that field one of whose rows it accepts. The page says how many `unit` (rows, or values of
   * `per`) it left out and `why`. The table, the CSV and report.json keep every row.
   */
  only?: { keep: (row: Readonly<Record<string, unknown>>) => boolean; per?: string; unit: string; why: string };
  /** The legend's title and the words for its values (a folded column's name, a code) where the raw value would not read well. */
  legend?: { title: string; labels?: Record<string, string> };
  /** Fixed colours of the `color` field's values, in legend order (a value not listed gets none: list them all). */
  colors?: Record<string, string>;
}

export interface FigureDef {
  key: string;
  title: string;
  /** What is counted, in a sentence or two. */
  about: string;
  sql: string;
  chart?: ChartSpec;
  /** The figure compares nights: it needs two or more in the window. */
  series?: boolean;
  /** Rows shown in the page's table (all rows go to report.json and the CSV). */
  tableRows?: number;
  /**
   * Per share column, the columns of its numerator and denominator: the page shows the share as
   * "41.0% (170 of 415)" (page.ts). A share column without an entry is shown as a percentage.
   */
  shareOf?: Record<string, readonly [numerator: string, denominator: string]>;
}

export interface SectionDef {
  key: string;
  title: string;
  intro: string;
  figures: FigureDef[];
}

/** The window of nights a report covers: asked for (from, to) and found in it (first, latest). */
export interface ReportWindow {
  from: string;
  to: string;
  firstNight: string;
  latestNight: string;
}

/** The statements that define the window and the rank buckets, run before every figure. */
export function setupSql(w: ReportWindow, buckets: readonly number[]): string[] {
  const sorted = [...new Set(buckets)].sort((a, b) => a - b);
  const arms: string[] = [];
  let lower = 0;
  for (const b of sorted) {
    arms.push(`WHEN r <= ${b} THEN '${rankLabel(lower)}–${rankLabel(b)}'`);
    lower = b;
  }
  const beyond = sorted.length > 0 ? `'beyond ${rankLabel(lower)}'` : `'ranked'`;
  return [
    `SET VARIABLE report_from = DATE '${w.from}'`,
    `SET VARIABLE report_to = DATE '${w.to}'`,
    `SET VARIABLE report_first_night = DATE '${w.firstNight}'`,
    `SET VARIABLE report_to_night = DATE '${w.latestNight}'`,
    `CREATE OR REPLACE MACRO in_window(d) AS d BETWEEN getvariable('report_from') AND getvariable('report_to')`,
    `CREATE OR REPLACE MACRO rank_bucket(r) AS CASE WHEN r IS NULL THEN 'unranked' ${arms.join(' ')} ELSE ${beyond} END`,
    // The window's record changes, read by two figures: computed once (small: the changed records).
    `CREATE OR REPLACE TEMP TABLE report_record_changes AS SELECT * FROM record_changes WHERE in_window(snapshot_date)`,
    // The listed sites that gained or lost a served ads.txt, read by two figures (small: the changes).
    `CREATE OR REPLACE TEMP TABLE report_site_changes AS ${SITE_CHANGES_SQL}`,
    // The latest night's ad_system_coverage, read by two figures.
    `CREATE OR REPLACE TEMP TABLE report_coverage AS SELECT * FROM ad_system_coverage WHERE snapshot_date = getvariable('report_to_night')`,
  ];
}

/** 1000 → '1k', 1000000 → '1M', 0 → '1' (the first bucket starts at rank 1). */
export function rankLabel(n: number): string {
  if (n === 0) return '1';
  if (n % 1_000_000 === 0) return `${n / 1_000_000}M`;
  if (n % 1_000 === 0) return `${n / 1_000}k`;
  return String(n);
}

/** The bucket labels in rank order, as rank_bucket() writes them. */
export function bucketLabels(buckets: readonly number[]): string[] {
  const sorted = [...new Set(buckets)].sort((a, b) => a - b);
  const out: string[] = [];
  let lower = 0;
  for (const b of sorted) {
    out.push(`${rankLabel(lower)}–${rankLabel(b)}`);
    lower = b;
  }
  out.push(sorted.length > 0 ? `beyond ${rankLabel(lower)}` : 'ranked', 'unranked');
  return out;
}

/** The `files.status` values of an ads.txt (or app-ads.txt) that is *served*: the one definition every figure uses. */
const SERVED_STATUSES = `('ok', 'placeholder', 'too_large')`;
const SERVED = `status IN ${SERVED_STATUSES}`;
/** The nights of the window that have no usable night summary (night-summary.ts). */
const VIEWED: NightFilter = (c) => `in_window(${c}) AND report_viewed(${c})`;
const LATEST = `snapshot_date = getvariable('report_to_night')`;

/**
 * Per listed site and night of the window, its ads.txt against its previous night in the window:
 * 'gained' when it is served now and was not, 'lost' the other way. Served as in section 1
 * (SERVED, whatever the provenance: a copy carried forward after a failed request is still
 * served, so a night the site could not be read is no change when an earlier copy stands).
 */
const SITE_CHANGES_SQL = `SELECT snapshot_date, site, rank, CASE WHEN served THEN 'gained' ELSE 'lost' END AS change, status, obtained, previous_date, previous_status
FROM (
  SELECT f.snapshot_date, f.subject AS site, t.rank, f.status, f.obtained, f.${SERVED} AS served,
    lag(f.snapshot_date) OVER w AS previous_date, lag(f.status) OVER w AS previous_status, lag(f.${SERVED}) OVER w AS previously_served
  FROM files f JOIN targets t ON t.snapshot_date = f.snapshot_date AND t.target = f.subject AND t.target_kind = 'domain'
  WHERE f.file_kind = 'ads.txt' AND in_window(f.snapshot_date)
  WINDOW w AS (PARTITION BY f.subject ORDER BY f.snapshot_date)
)
WHERE previous_date IS NOT NULL AND served IS DISTINCT FROM previously_served`;

/**
 * What each store of store-id.ts (StoreName, every value it produces) says about the screen its
 * apps run on. 'ctv': every listing is a TV app (Roku Channel Store, LG Content Store for webOS
 * TV). 'by_url': Samsung, whose TV apps (samsung.com/<cc>/appstore/app/<id>) and Galaxy Store
 * apps for phones (galaxystore.samsung.com, apps.samsung.com) have different listing URLs, so the
 * store URL tells them apart. 'mixed': one URL shape for TV and other apps, so adsnap cannot tell
 * (Amazon: Fire TV and Appstore apps are both amazon.<tld>/dp/<ASIN>; Apple: tvOS and iOS apps
 * are both apps.apple.com/…/id<N>; Microsoft: Xbox and Windows apps are both Microsoft Store
 * ids): not counted as CTV. A store added to StoreName must be placed here (the type says so).
 */
const STORE_SCREEN: Record<StoreName, 'ctv' | 'by_url' | 'mobile' | 'mixed' | 'unknown'> = {
  roku: 'ctv',
  lg: 'ctv',
  samsung: 'by_url',
  amazon: 'mixed',
  apple: 'mixed',
  microsoft: 'mixed',
  google_play: 'mobile',
  huawei: 'mobile',
  xiaomi: 'mobile',
  other: 'unknown',
};
/** Stores all of whose apps are CTV apps (Samsung's TV apps are told apart by URL: ctvAppSql). */
export const CTV_STORES = (Object.keys(STORE_SCREEN) as StoreName[]).filter((s) => STORE_SCREEN[s] === 'ctv');
/** The Samsung listings that are TV apps: store-id.ts keys those by samsung.com (the Galaxy Store by galaxystore/apps.samsung.com). */
const SAMSUNG_TV_URL = String.raw`^([a-z][a-z0-9+.-]*:)?(//)?(www\.)?samsung\.com([:/?#]|$)`;
/** SQL: the app of table alias `a` (the apps table) is a CTV app. */
export function ctvAppSql(a: string): string {
  const byUrl = (Object.keys(STORE_SCREEN) as StoreName[]).filter((s) => STORE_SCREEN[s] === 'by_url');
  return `(${a}.store IN (${CTV_STORES.map((s) => `'${s}'`).join(', ')}) OR (${a}.store IN (${byUrl.map((s) => `'${s}'`).join(', ')}) AND regexp_matches(lower(trim(${a}.store_url)), '${SAMSUNG_TV_URL}')))`;
}
const CTV_ABOUT =
  "CTV apps: Roku and LG (webOS TV) listings, and Samsung listings at samsung.com/<cc>/appstore/app/ (Samsung's TV store; galaxystore.samsung.com is the Galaxy Store for phones). Amazon, Apple and Microsoft listings are not counted as CTV: their URLs are the same for Fire TV, tvOS and Xbox apps as for the others, so adsnap cannot tell.";

/** Chart filter of the AI-crawler figures: a crawler some robots.txt names (fully or partly, by its own group). */
const namedByASite = (r: Readonly<Record<string, unknown>>): boolean => Number(r.share_full_by_name ?? 0) > 0 || Number(r.share_partial_by_name ?? 0) > 0;
const NAMED_BY_NO_SITE = "no site's robots.txt names them, so only the '*' groups decide for them and every one of them has the same shares (see the table)";
/** Blocked levels in the order read (most blocked first), red to grey; 'unknown' (robots.txt not seen) grey. */
const BLOCKED_COLORS: Record<string, string> = { full: '#b91c1c', partial: '#f59e0b', none: '#d1d5db', unknown: '#6b7280' };

export const SECTIONS: SectionDef[] = [
  {
    key: 'adoption',
    title: '1. Adoption',
    intro: 'How many listed sites serve an ads.txt, and how many apps reach an app-ads.txt through their developer site.',
    figures: [
      {
        key: 'adoption.ads_txt_by_rank',
        title: 'ads.txt served, valid and placeholder, by rank bucket',
        about:
          "Listed sites per night and rank bucket. Served: the file's content was ads.txt text (status ok, placeholder or too_large). Valid: files.valid. Placeholder: the IAB placeholder record only. Shares are of the bucket's sites.",
        sql: `SELECT * EXCLUDE (first_rank), round(served / sites, 4) AS served_share, round(valid / sites, 4) AS valid_share, round(placeholder / sites, 4) AS placeholder_share
FROM (
  SELECT snapshot_date, rank_bucket(rank) AS rank_bucket, count(*) AS sites,
    count(*) FILTER (WHERE ads_txt_status IN ('ok', 'placeholder', 'too_large')) AS served,
    count(*) FILTER (WHERE ads_txt_valid) AS valid,
    count(*) FILTER (WHERE ads_txt_status = 'placeholder') AS placeholder,
    min(coalesce(rank, 2147483647)) AS first_rank
  FROM (
    -- adoption's ads_txt_status and ads_txt_valid, without the hop counts the view adds
    SELECT t.snapshot_date, t.rank, f.status AS ads_txt_status, coalesce(f.valid, false) AS ads_txt_valid
    FROM targets t LEFT JOIN files f ON f.snapshot_date = t.snapshot_date AND f.subject = t.target AND f.file_kind = 'ads.txt'
    WHERE t.target_kind = 'domain' AND in_window(t.snapshot_date)
  ) GROUP BY ALL
) ORDER BY snapshot_date, first_rank`,
        chart: { kind: 'line', x: 'snapshot_date', y: 'valid_share', color: 'rank_bucket', xTitle: 'Snapshot date', yTitle: 'Sites with a valid ads.txt (% of bucket)', percent: true },
        shareOf: { served_share: ['served', 'sites'], valid_share: ['valid', 'sites'], placeholder_share: ['placeholder', 'sites'] },
      },
      {
        key: 'adoption.app_ads_txt_by_store',
        title: 'app-ads.txt by store',
        about: `Listed apps per night and store (Samsung's TV store, 'samsung (TV)', apart from its Galaxy Store). Developer site: the store listing named one (or the list did). Served / valid: the app-ads.txt of the developer host used (after the subdomain → parent fallback), as for ads.txt. ${CTV_ABOUT}`,
        sql: `SELECT *, round(served / apps, 4) AS served_share, round(valid / apps, 4) AS valid_share
FROM (
  SELECT a.snapshot_date, CASE WHEN a.store = 'samsung' AND ${ctvAppSql('a')} THEN 'samsung (TV)' ELSE coalesce(a.store, 'other') END AS store,
    ${ctvAppSql('a')} AS ctv, count(*) AS apps,
    count(*) FILTER (WHERE a.developer_url IS NOT NULL) AS developer_site,
    count(*) FILTER (WHERE f.${SERVED}) AS served,
    count(*) FILTER (WHERE f.valid) AS valid
  FROM apps a
  LEFT JOIN files f ON f.snapshot_date = a.snapshot_date AND f.subject = a.subject AND f.file_kind = 'app-ads.txt'
  WHERE in_window(a.snapshot_date) GROUP BY ALL
) ORDER BY snapshot_date, apps DESC, store`,
        chart: { kind: 'bar', x: 'store', y: 'valid_share', xTitle: 'Store', yTitle: 'Apps with a valid app-ads.txt (% of apps)', percent: true },
        shareOf: { served_share: ['served', 'apps'], valid_share: ['valid', 'apps'] },
      },
    ],
  },
  {
    key: 'variables',
    title: '2. Variables',
    intro: 'The ads.txt 1.1 variables that served files declare: who owns and manages the inventory, and where it is delegated.',
    figures: [
      {
        key: 'variables.declared',
        title: 'Files declaring each variable',
        about:
          `Served ads.txt and app-ads.txt files (of listed sites, declared subdomains, partners and developer hosts) declaring the variable at least once, and their share of the served files of that kind. app-ads.txt is split by the apps that use the file: 'CTV' when one of them is a CTV app, else 'not CTV'. ${CTV_ABOUT}`,
        sql: `WITH served AS (
  SELECT f.snapshot_date, f.subject, f.file_kind,
    CASE WHEN f.file_kind = 'ads.txt' THEN 'ads.txt'
         WHEN f.subject IN (SELECT a.subject FROM apps a WHERE a.snapshot_date = f.snapshot_date AND ${ctvAppSql('a')}) THEN 'app-ads.txt (CTV)'
         ELSE 'app-ads.txt (not CTV)' END AS file_group
  FROM files f WHERE in_window(f.snapshot_date) AND f.file_kind IN ('ads.txt', 'app-ads.txt') AND f.${SERVED}
), declared AS (
  SELECT DISTINCT snapshot_date, subject, file_kind, upper(name) AS name FROM ads_variables WHERE in_window(snapshot_date)
), names AS (SELECT unnest(['OWNERDOMAIN', 'MANAGERDOMAIN', 'SUBDOMAIN', 'INVENTORYPARTNERDOMAIN', 'CONTACT']) AS name)
SELECT s.snapshot_date, s.file_group, n.name, count(*) AS files_served, count(d.name) AS files_declaring,
  round(count(d.name) / count(*), 4) AS share
FROM served s CROSS JOIN names n
LEFT JOIN declared d ON d.snapshot_date = s.snapshot_date AND d.subject = s.subject AND d.file_kind = s.file_kind AND d.name = n.name
GROUP BY ALL ORDER BY s.snapshot_date, s.file_group, n.name`,
        chart: { kind: 'line', x: 'snapshot_date', y: 'share', color: 'name', xTitle: 'Snapshot date', yTitle: 'Served files declaring it (%)', percent: true },
        shareOf: { share: ['files_declaring', 'files_served'] },
      },
      {
        key: 'variables.managerdomain_countries',
        title: 'MANAGERDOMAIN by country (latest night)',
        about: "MANAGERDOMAIN lines of the latest night by the country given after the domain (ads.txt 1.1 §4.5); 'global' when none is given.",
        sql: `SELECT coalesce(upper(value_country), 'global') AS country, count(*) AS declarations, count(DISTINCT subject) AS files
FROM ads_variables WHERE ${LATEST} AND upper(name) = 'MANAGERDOMAIN'
GROUP BY ALL ORDER BY declarations DESC, country LIMIT 50`,
        chart: { kind: 'hbar', x: 'declarations', y: 'country', xTitle: 'MANAGERDOMAIN lines', yTitle: 'Country' },
      },
    ],
  },
  {
    key: 'ad_systems',
    title: '3. Ad systems',
    intro: 'The ad systems that files authorize, and how they are named.',
    figures: [
      {
        key: 'ad_systems.top',
        title: 'Most-authorized ad systems (latest night)',
        about:
          'Per ad system: the ads.txt / app-ads.txt files naming it, its records, the share of DIRECT records and of records with a certification authority id. The 25 named by most files.',
        sql: `SELECT ad_system_domain, count(DISTINCT (subject, file_kind)) AS files, count(*) AS records,
  round(count(*) FILTER (WHERE relationship = 'DIRECT') / count(*), 4) AS direct_share,
  round(count(*) FILTER (WHERE cert_authority_id IS NOT NULL) / count(*), 4) AS cert_id_share
FROM ads_records WHERE ${LATEST}
GROUP BY ALL ORDER BY files DESC, records DESC, ad_system_domain LIMIT 25`,
        chart: { kind: 'hbar', x: 'files', y: 'ad_system_domain', xTitle: 'Files naming the ad system', yTitle: 'Ad system' },
      },
      {
        key: 'ad_systems.relationship',
        title: 'DIRECT and RESELLER records over time',
        about: 'All ads.txt and app-ads.txt records per night by relationship, and the share of each.',
        sql: `SELECT snapshot_date, relationship, count(*) AS records,
  round(count(*) / sum(count(*)) OVER (PARTITION BY snapshot_date), 4) AS share
FROM ads_records WHERE in_window(snapshot_date)
GROUP BY snapshot_date, relationship ORDER BY snapshot_date, relationship`,
        chart: { kind: 'stacked', x: 'snapshot_date', y: 'records', color: 'relationship', xTitle: 'Snapshot date', yTitle: 'Records' },
      },
    ],
  },
  {
    key: 'consistency',
    title: '4. Supply-chain consistency',
    intro:
      "Records of valid files checked against the ad system's sellers.json (view seller_match): seller ids the file does not list, relationships that contradict seller_type, and OWNERDOMAIN against the seller's domain.",
    figures: [
      {
        key: 'consistency.by_ad_system',
        title: 'Records checked against sellers.json, per ad system (latest night)',
        about:
          "Checkable: the ad system's sellers.json was read whole and valid. Missing: its seller id is not listed. Relationship mismatch: DIRECT for a seller typed INTERMEDIARY, or RESELLER for one typed PUBLISHER. Owner mismatch: a DIRECT record whose OWNERDOMAIN (or site) differs from the seller's domain. The 25 ad systems with most records.",
        sql: `SELECT * REPLACE (round(missing / nullif(checkable, 0), 4) AS missing_share)
FROM (
  SELECT ad_system_domain, any_value(sellers_json_status) AS sellers_json_status, count(*) AS records,
    count(*) FILTER (WHERE seller_found OR seller_missing) AS checkable,
    count(*) FILTER (WHERE seller_missing) AS missing,
    NULL::DOUBLE AS missing_share,
    count(*) FILTER (WHERE relationship_consistent = false) AS relationship_mismatch,
    count(*) FILTER (WHERE owner_domain_consistent = false) AS owner_mismatch
  FROM seller_match WHERE ${LATEST} GROUP BY ALL
) ORDER BY records DESC, ad_system_domain LIMIT 25`,
        chart: { kind: 'hbar', x: 'missing', y: 'ad_system_domain', xTitle: 'Records whose seller id sellers.json does not list', yTitle: 'Ad system' },
        shareOf: { missing_share: ['missing', 'checkable'] },
      },
      {
        key: 'consistency.sellers_location_effect',
        title: 'Records checkable at the default sellers.json location and with the locations table (latest night)',
        about:
          "View ad_system_coverage, all ad systems: the records of valid files, and how many can be checked against their ad system's sellers.json (read whole and valid). 'default location only': the records of ad systems whose sellers.json was asked at https://AD_SYSTEM/sellers.json (the ad systems asked elsewhere count as not checkable: the default URL was not asked, and google.com answers 404 there; so do those with no request known). 'with the locations table': every checkable record, the ad systems asked at their location (data/sellers-locations.tsv, --sellers-location) included. Where a file was asked is the request's URL, not the URL finally read: a redirect from the default location is not a location.",
        sql: `WITH t AS (
  SELECT coalesce(sum(records), 0)::BIGINT AS records,
    -- Only the ad systems whose sellers.json was asked at the default URL: one never asked (no request known) is at no location.
    coalesce(sum(checkable) FILTER (WHERE at_spec_location), 0)::BIGINT AS at_default,
    coalesce(sum(checkable), 0)::BIGINT AS with_locations,
    count(*) FILTER (WHERE NOT coalesce(at_spec_location, true)) AS ad_systems_at_a_location
  FROM report_coverage
)
SELECT * FROM (
  SELECT 'default location only' AS reading, records, at_default AS checkable, round(at_default / nullif(records, 0), 4) AS checkable_share, ad_systems_at_a_location FROM t
  UNION ALL
  SELECT 'with the locations table', records, with_locations, round(with_locations / nullif(records, 0), 4), ad_systems_at_a_location FROM t
) WHERE records > 0 ORDER BY checkable, reading`,
        chart: { kind: 'bar', x: 'reading', y: 'checkable', xTitle: 'Where sellers.json was asked', yTitle: 'Records checkable against sellers.json' },
        shareOf: { checkable_share: ['checkable', 'records'] },
      },
      {
        key: 'consistency.sellers_location',
        title: 'Records checkable because sellers.json was read where the ad system publishes it (latest night)',
        about:
          "View ad_system_coverage: the ad systems whose sellers.json was served by a location other than https://AD_SYSTEM/sellers.json (the spec's location is asked first; when it gives no readable file, the entries of data/sellers-locations.tsv or --sellers-location, in order): `served_by` says which served it (sellers_files.location), `sellers_json_url` the URL asked there (not the one finally read after redirects), its status, and the records of valid files naming them: checkable at the default location (none: it gave no readable file) and with the location (the file read there whole and valid). The 25 with most records.",
        sql: `SELECT ad_system_domain, CASE WHEN at_spec_location THEN 'spec location' ELSE 'locations table' END AS served_by, sellers_json_url, sellers_json_status AS status, records, 0::BIGINT AS checkable_at_default_location, checkable AS checkable_with_location
FROM report_coverage WHERE NOT coalesce(at_spec_location, true)
ORDER BY records DESC, ad_system_domain LIMIT 25`,
        chart: { kind: 'hbar', x: 'checkable_with_location', y: 'ad_system_domain', xTitle: 'Records checkable against the sellers.json read at the location', yTitle: 'Ad system' },
      },
      {
        key: 'consistency.over_time',
        title: 'Consistency over time',
        about: 'All records of valid files per night: checkable, missing, relationship and owner mismatches, and the missing share of checkable records.',
        // The nights with a night summary from it, the others from the view (night-summary.ts).
        sql: `SELECT *, round(missing / nullif(checkable, 0), 4) AS missing_share
FROM (
  -- A night without a record of a valid file has no row, as in the view's grouping.
  SELECT snapshot_date, records, checkable, missing, relationship_mismatch, owner_mismatch FROM report_night_summary WHERE records > 0
  UNION ALL
  ${consistencyNightsSql(VIEWED)}
) ORDER BY snapshot_date`,
        chart: { kind: 'line', x: 'snapshot_date', y: 'missing_share', xTitle: 'Snapshot date', yTitle: 'Checkable records with a missing seller id (%)', percent: true },
        shareOf: { missing_share: ['missing', 'checkable'] },
      },
    ],
  },
  {
    key: 'pooling',
    title: '5. Pooling',
    intro:
      `A seller account claimed as DIRECT by publishers that are not the same business: the signal of pooled (shared or resold) accounts, as in the IEEE S&P 2024 study of ads.txt and sellers.json misrepresentation. A file's owner is the first OWNERDOMAIN it declares, else the site itself, reduced to its registrable domain (its host, then the Public Suffix List's domain, private section included, as adsnap keys sites: www.x.com and x.com are one owner, news.x.co.uk is x.co.uk). The reduction is the table ${OWNER_TABLE} that setup_sql loads from pooling.owner_domains.csv beside the report (computed with tldts). A DIRECT account should belong to one owner, the one its sellers.json entry names.`,
    figures: [
      {
        key: 'pooling.worst',
        title: 'Seller ids claimed DIRECT by the most owners (latest night)',
        about:
          "Per (ad system, seller id) in DIRECT records of valid files: the distinct sites and owners (registrable domains) claiming it, how many of those owners match the domain its sellers.json entry names (seller_match.owner_domain_consistent), and that entry's name and domain. Listed when two or more owners claim it. The 25 with most owners.",
        // The pooled ids are found from the records alone: the (ad system, seller id, site) claims
        // are grouped before each site's owner is joined on (a four-string-key grouping of every
        // record ran out of memory on a 1M-site night), and seller_match, with its joins to
        // sellers.json, is read only for the 25 listed.
        sql: `WITH owner AS (
  SELECT subject, file_kind, arg_min(value_domain, line_no) AS owner_domain
  FROM ads_variables WHERE ${LATEST} AND name = 'OWNERDOMAIN' GROUP BY ALL
), site_owner AS (
  SELECT f.subject, f.file_kind, coalesce(d.owner_domain, coalesce(o.owner_domain, f.subject)) AS owner_domain
  FROM files f
  LEFT JOIN owner o ON o.subject = f.subject AND o.file_kind = f.file_kind
  LEFT JOIN ${OWNER_TABLE} d ON d.owner = coalesce(o.owner_domain, f.subject)
  WHERE f.${LATEST} AND f.valid AND f.file_kind IN ('ads.txt', 'app-ads.txt')
), site_claims AS (
  SELECT ad_system_domain, seller_account_id, subject, file_kind FROM ads_records
  WHERE ${LATEST} AND relationship = 'DIRECT' GROUP BY ALL
), claims AS (
  SELECT c.ad_system_domain, c.seller_account_id, s.owner_domain, count(DISTINCT c.subject) AS sites
  FROM site_claims c JOIN site_owner s ON s.subject = c.subject AND s.file_kind = c.file_kind
  GROUP BY ALL
), top AS (
  SELECT ad_system_domain, seller_account_id, sum(sites)::BIGINT AS sites, count(*) AS owners
  FROM claims GROUP BY ad_system_domain, seller_account_id HAVING count(*) >= 2
  ORDER BY owners DESC, sites DESC, ad_system_domain, seller_account_id LIMIT 25
), samples AS (
  SELECT c.ad_system_domain, c.seller_account_id, min(c.owner_domain, 5) AS sample_owners
  FROM claims c SEMI JOIN top t ON t.ad_system_domain = c.ad_system_domain AND t.seller_account_id = c.seller_account_id
  GROUP BY ALL
), matched AS (
  SELECT m.ad_system_domain, m.seller_account_id, coalesce(d.owner_domain, m.owner_domain) AS owner_domain,
    coalesce(bool_or(m.owner_domain_consistent), false) AS matches_seller, any_value(m.seller_name) AS seller_name, any_value(m.seller_domain) AS seller_domain
  FROM seller_match m JOIN top t ON t.ad_system_domain = m.ad_system_domain AND t.seller_account_id = m.seller_account_id
  LEFT JOIN ${OWNER_TABLE} d ON d.owner = m.owner_domain
  WHERE m.${LATEST} AND m.relationship = 'DIRECT'
  GROUP BY ALL
)
SELECT t.ad_system_domain, t.seller_account_id, any_value(x.seller_name) AS seller_name, any_value(x.seller_domain) AS seller_domain,
  t.sites, t.owners, count(*) FILTER (WHERE x.matches_seller) AS owners_matching_seller_domain, any_value(s.sample_owners) AS sample_owners
FROM top t
JOIN samples s ON s.ad_system_domain = t.ad_system_domain AND s.seller_account_id = t.seller_account_id
LEFT JOIN matched x ON x.ad_system_domain = t.ad_system_domain AND x.seller_account_id = t.seller_account_id
GROUP BY t.ad_system_domain, t.seller_account_id, t.sites, t.owners
ORDER BY owners DESC, sites DESC, ad_system_domain, seller_account_id LIMIT 25`,
        tableRows: 25,
      },
      {
        key: 'pooling.over_time',
        title: 'Pooled seller ids over time',
        about: 'Per night: (ad system, seller id) pairs claimed DIRECT by two or more owners (as above), and the records that claim them.',
        // The nights with a night summary from it, the others from the records (night-summary.ts).
        sql: `SELECT * FROM (
  -- A night without a pooled id has no row, as in the grouping below.
  SELECT snapshot_date, pooled_ids, pooled_records AS records FROM report_night_summary WHERE pooled_ids > 0
  UNION ALL
  SELECT * FROM (
${poolingNightsSql(VIEWED)}
  )
) ORDER BY snapshot_date`,
        chart: { kind: 'line', x: 'snapshot_date', y: 'pooled_ids', xTitle: 'Snapshot date', yTitle: 'Pooled seller ids' },
      },
    ],
  },
  {
    key: 'robots',
    title: '6. robots.txt and AI crawlers',
    intro:
      "Per crawler of the agents catalogue the crawl recorded (table agents_catalogue; docs/reference/ai-crawlers.md), what the robots.txt of the listed sites says to it: the views agent_access_shares and ai_crawler_blocking, whose shares these are. Full: a disallow rule matches every path; partial: some path is disallowed; none: nothing is. By name: a group naming the crawler decided; through '*': no group names it and the '*' groups decided. Unknown: the robots.txt content was not seen (a bot wall, a 429, a 5xx, no answer), so the site said nothing; RFC 9309 §2.3.1 tells a crawler how to behave then (a 5xx or no answer: disallow all, 'unreachable'), not what the site chose. None: nothing is disallowed, or a 4xx said there is no robots.txt (§2.3.1.3, 'absent'). Shares are of the night's listed sites (their robots.txt row, files.via = 'root'); full, partial, none and unknown add up to 1.",
    figures: [
      {
        key: 'robots.agents',
        title: 'Sites blocking each crawler, fully or partly, by name or through * (latest night)',
        about:
          "View ai_crawler_blocking, one row per catalogue agent: the sites and the shares blocking it fully, partly, not at all, or unknown (robots.txt not seen; these four add up to 1), fully and partly by name or through '*', and the shares a crawler must treat as disallowing all (unreachable: 5xx or no answer, all unknown) or a 4xx said have none (absent). The chart draws the crawlers some robots.txt names (at most 30), their full share by name and through '*' apart; the others, decided by '*' alone, share one set of figures (the table).",
        sql: `SELECT user_agent, operator, purpose, sites, share_full, share_partial, share_none, share_unknown,
  share_full_by_name, share_full_through_star, share_partial_by_name, share_partial_through_star, share_unreachable, share_absent
FROM ai_crawler_blocking WHERE ${LATEST}
ORDER BY share_full DESC, share_partial DESC, user_agent`,
        // Drawn: the crawlers some site names, fully blocked by name and through '*' apart. A crawler no site names is blocked only by
        // the '*' groups, the same share for every one of them: one bar each would be a wall of identical bars (the table has them).
        chart: {
          kind: 'hbar', x: 'share', y: 'user_agent', fold: ['share_full_by_name', 'share_full_through_star'], xTitle: 'Sites blocking it fully (% of listed sites)', yTitle: 'Crawler', percent: true,
          legend: { title: 'Blocked fully', labels: { share_full_by_name: 'by name', share_full_through_star: "through '*'" } },
          only: { keep: namedByASite, unit: 'crawlers', why: NAMED_BY_NO_SITE },
          top: { field: 'user_agent', n: 30 },
        },
      },
      {
        key: 'robots.access',
        title: 'How each crawler is answered: blocked level and way (latest night)',
        about:
          "View agent_access_shares: per catalogue agent, blocked level (full, partial, none, unknown) and way (own_group: by name; global_group: through '*'; no_group; unreachable; absent), the listed sites and their share. The chart stacks the shares of the crawlers some robots.txt names (at most 30, most blocked first).",
        sql: `SELECT s.user_agent, s.operator, s.purpose, s.blocked, s.via, s.sites, s.share
FROM agent_access_shares s
JOIN ai_crawler_blocking b ON b.snapshot_date = s.snapshot_date AND b.user_agent = s.user_agent
WHERE s.${LATEST}
ORDER BY b.share_full DESC, b.share_partial DESC, s.user_agent, CASE s.blocked WHEN 'full' THEN 0 WHEN 'partial' THEN 1 WHEN 'none' THEN 2 ELSE 3 END, s.via`,
        chart: {
          kind: 'hbar', x: 'share', y: 'user_agent', color: 'blocked', xTitle: 'Listed sites (%)', yTitle: 'Crawler', percent: true, top: { field: 'user_agent', n: 30 },
          only: { keep: (r) => r.via === 'own_group', per: 'user_agent', unit: 'crawlers', why: NAMED_BY_NO_SITE },
          colors: BLOCKED_COLORS,
        },
      },
      {
        key: 'robots.purposes',
        title: 'Sites restricting AI and ad crawlers, by purpose: opt-outs, partial restrictions, unknown (latest night)',
        about:
          "View ai_crawler_blocking_by_purpose (and ai_crawler_blocking_by_operator, by operator): per catalogue purpose, each listed site's answer to the purpose's agents together. Opt-outs: full (every agent of the purpose blocked fully) and some_full (some of them blocked fully, not all); partial: no agent blocked fully, but some path disallowed (a restriction, not an opt-out); none: no agent restricted; unknown: robots.txt not seen. The five add up to 1; share_any_full = full + some_full. The chart stacks the five levels.",
        sql: `SELECT purpose, agents, sites, share_any_full, level, share FROM (
  SELECT purpose, agents, sites, share_any_full,
    unnest(['full', 'some_full', 'partial', 'none', 'unknown']) AS level,
    unnest([share_full, share_some_full, share_partial, share_none, share_unknown]) AS share
  FROM ai_crawler_blocking_by_purpose WHERE ${LATEST}
) ORDER BY share_any_full DESC, purpose, list_position(['full', 'some_full', 'partial', 'none', 'unknown'], level)`,
        chart: { kind: 'hbar', x: 'share', y: 'purpose', color: 'level', xTitle: 'Listed sites (%)', yTitle: 'Purpose', percent: true },
      },
      {
        key: 'robots.agents_over_time',
        title: 'Sites blocking each crawler, fully and partly, over time',
        about:
          "View ai_crawler_blocking per night and catalogue agent: the sites, the shares blocking it fully and partly, and how (by name or through '*'). The chart draws the full share of the 10 agents blocked fully by most sites on the latest night; the table and the CSV have every agent, partial shares included.",
        sql: `WITH latest AS (
  SELECT user_agent, row_number() OVER (ORDER BY share_full DESC, share_partial DESC, user_agent) AS agent_rank
  FROM ai_crawler_blocking WHERE ${LATEST}
)
SELECT b.snapshot_date, b.user_agent, b.operator, b.purpose, b.sites, b.share_full, b.share_partial, b.share_unknown,
  b.share_full_by_name, b.share_full_through_star, b.share_partial_by_name, b.share_partial_through_star
FROM ai_crawler_blocking b LEFT JOIN latest l USING (user_agent)
WHERE in_window(b.snapshot_date)
ORDER BY l.agent_rank NULLS LAST, b.user_agent, b.snapshot_date`,
        chart: { kind: 'line', x: 'snapshot_date', y: 'share_full', color: 'user_agent', xTitle: 'Snapshot date', yTitle: 'Listed sites blocking it fully (%)', percent: true, top: { field: 'user_agent', n: 10 } },
        series: true,
      },
    ],
  },
  {
    key: 'changes',
    title: '7. Changes',
    intro:
      "Records and sellers: what changed between consecutive observations of the same file (views record_changes and seller_changes); a night a file could not be read does not count as a change. Sites: a listed site's ads.txt on a night against its previous night in the window, served or not as in section 1 (status ok, placeholder or too_large, whatever the provenance: a copy carried forward after a failed request is still served).",
    figures: [
      {
        key: 'changes.per_night',
        title: 'Records and sellers added and removed per night',
        about:
          "Per night: ads.txt / app-ads.txt records added and removed since the previous observation of their file, sellers.json entries added and removed, and listed sites that gained or lost a served ads.txt (status ok, placeholder or too_large) since their previous night: the day-to-day difference of section 1's served count, for the sites listed both nights.",
        sql: `WITH nights AS (SELECT DISTINCT snapshot_date FROM files WHERE in_window(snapshot_date)),
rc AS (SELECT snapshot_date, count(*) FILTER (WHERE change = 'added') AS added, count(*) FILTER (WHERE change = 'removed') AS removed FROM report_record_changes GROUP BY ALL),
sc AS (SELECT snapshot_date, count(*) FILTER (WHERE change = 'added') AS added, count(*) FILTER (WHERE change = 'removed') AS removed FROM seller_changes GROUP BY ALL),
site AS (SELECT snapshot_date, count(*) FILTER (WHERE change = 'gained') AS gained, count(*) FILTER (WHERE change = 'lost') AS lost FROM report_site_changes GROUP BY ALL)
SELECT n.snapshot_date, coalesce(rc.added, 0) AS records_added, coalesce(rc.removed, 0) AS records_removed,
  coalesce(sc.added, 0) AS sellers_added, coalesce(sc.removed, 0) AS sellers_removed,
  coalesce(site.gained, 0) AS sites_gained_ads_txt, coalesce(site.lost, 0) AS sites_lost_ads_txt
FROM nights n LEFT JOIN rc USING (snapshot_date) LEFT JOIN sc USING (snapshot_date) LEFT JOIN site USING (snapshot_date)
WHERE n.snapshot_date > getvariable('report_first_night')
ORDER BY n.snapshot_date`,
        chart: { kind: 'line', x: 'snapshot_date', y: 'records', fold: ['records_added', 'records_removed'], xTitle: 'Snapshot date', yTitle: 'Records added and removed' },
        series: true,
      },
      {
        key: 'changes.ad_systems',
        title: 'Ad systems gaining and losing most records (latest night)',
        about: 'Records added minus records removed on the latest night, per ad system: the ten that gained most and the ten that lost most.',
        sql: `WITH net AS (
  SELECT *, added - removed AS net FROM (
    SELECT ad_system_domain, count(*) FILTER (WHERE change = 'added') AS added, count(*) FILTER (WHERE change = 'removed') AS removed
    FROM report_record_changes WHERE ${LATEST} GROUP BY ALL
  )
)
SELECT * FROM (SELECT *, 'gained' AS side FROM net WHERE net > 0 ORDER BY net DESC, ad_system_domain LIMIT 10)
UNION ALL
SELECT * FROM (SELECT *, 'lost' AS side FROM net WHERE net < 0 ORDER BY net, ad_system_domain LIMIT 10)
ORDER BY net DESC, ad_system_domain`,
        chart: { kind: 'hbar', x: 'net', y: 'ad_system_domain', xTitle: 'Records added minus removed', yTitle: 'Ad system' },
        series: true,
      },
      {
        key: 'changes.sites',
        title: 'Sites that gained or lost their ads.txt',
        about:
          "The listed sites counted in sites_gained_ads_txt and sites_lost_ads_txt above: per night, the site, its rank, its ads.txt status that night and on its previous night (served: ok, placeholder or too_large). At most the 50 best-ranked sites per night and direction; the counts above have them all.",
        sql: `SELECT snapshot_date, change, site, rank, previous_status, status, obtained, previous_date
FROM report_site_changes
QUALIFY row_number() OVER (PARTITION BY snapshot_date, change ORDER BY rank NULLS LAST, site) <= 50
ORDER BY snapshot_date DESC, change, rank NULLS LAST, site`,
        series: true,
      },
    ],
  },
  {
    key: 'sellers',
    title: '8. sellers.json',
    intro: 'The sellers.json files of the ad systems that the files name: who they list, and what their headers say.',
    figures: [
      {
        key: 'sellers.availability',
        title: 'sellers.json availability: ad systems and intermediaries apart (latest night)',
        about:
          "View sellers_json_availability: the sellers.json files asked that night by status, for the ad systems that the files' records name and, apart, for the intermediaries reached only through an INTERMEDIARY/BOTH entry of another sellers.json (every such entry's domain is asked, so most answer 404: they are not ad systems lacking a file). Share: of the role's files.",
        sql: `SELECT role, status, readable, files, share FROM sellers_json_availability WHERE ${LATEST}
ORDER BY role, files DESC, status`,
        chart: { kind: 'hbar', x: 'files', y: 'role', color: 'status', xTitle: 'sellers.json files', yTitle: 'Role' },
      },
      {
        key: 'sellers.types',
        title: 'Sellers by type (latest night)',
        about: 'Entries of the sellers.json files read that night, by seller_type, with the share marked confidential.',
        sql: `SELECT coalesce(seller_type, '(none)') AS seller_type, count(*) AS sellers,
  round(count(*) / sum(count(*)) OVER (), 4) AS share,
  round(count(*) FILTER (WHERE is_confidential) / count(*), 4) AS confidential_share
FROM sellers WHERE ${LATEST} GROUP BY 1 ORDER BY sellers DESC, seller_type`,
        chart: { kind: 'bar', x: 'seller_type', y: 'sellers', xTitle: 'seller_type', yTitle: 'Sellers' },
      },
      {
        key: 'sellers.files',
        title: 'sellers.json files (latest night)',
        about:
          'Per ad system: the status of its sellers.json, the entries, the file size in bytes, and the header fields it fills (version, contact_email, identifiers such as TAG-ID or DUNS). The 25 largest.',
        sql: `SELECT f.subject AS ad_system_domain, f.status, f.records AS sellers, f.bytes,
  h.version, h.contact_email IS NOT NULL AS has_contact_email, coalesce(len(h.identifier_names), 0) AS identifiers,
  h.ext IS NOT NULL AS has_ext
FROM files f LEFT JOIN sellers_files h ON h.snapshot_date = f.snapshot_date AND h.ad_system_domain = f.subject
WHERE f.${LATEST} AND f.file_kind = 'sellers.json'
ORDER BY f.records DESC NULLS LAST, f.subject LIMIT 25`,
        chart: { kind: 'hbar', x: 'sellers', y: 'ad_system_domain', xTitle: 'Sellers listed', yTitle: 'Ad system' },
      },
      {
        key: 'sellers.reach_by_depth',
        title: 'Publishers the ad systems reach through intermediaries (latest night)',
        about:
          "View seller_reach: from each ad system's sellers.json, the files reached through INTERMEDIARY/BOTH entries, by the smallest number of links (0 = the ad system's own file). Per depth: the ad systems, the sellers.json files read at that depth and their entries, and the publishers: per ad system, each domain named by a PUBLISHER or BOTH entry (a BOTH seller sells its own inventory too), counted once at the smallest depth the ad system reaches it, then summed over the ad systems. One ad system's publishers are the query of docs/guide/analysing.md ('which publishers an ad system reaches, through how many intermediaries').",
        sql: `WITH reach AS MATERIALIZED (
  SELECT * FROM seller_reach WHERE ${LATEST}
), publishers AS (
  SELECT depth, count(*) AS publishers FROM (
    SELECT ad_system_domain, seller_domain, min(depth) AS depth FROM reach
    WHERE seller_type IN ('PUBLISHER', 'BOTH') AND seller_domain IS NOT NULL
    GROUP BY ad_system_domain, seller_domain
  ) GROUP BY depth
)
SELECT r.depth, count(DISTINCT r.ad_system_domain) AS ad_systems, count(DISTINCT r.via_domain) AS files, count(*) AS entries,
  coalesce(any_value(p.publishers), 0) AS publishers
FROM reach r LEFT JOIN publishers p ON p.depth = r.depth
GROUP BY r.depth ORDER BY r.depth`,
        chart: { kind: 'bar', x: 'depth', y: 'publishers', xTitle: 'Intermediary links from the ad system', yTitle: 'Publishers reached (per ad system, summed)' },
      },
      {
        key: 'sellers.headers',
        title: 'Header fields filled (latest night)',
        about: 'Of the sellers.json files read whole that night: how many give each header field.',
        sql: `SELECT count(*) AS files, count(version) AS version, count(contact_email) AS contact_email, count(contact_address) AS contact_address,
  count(*) FILTER (WHERE len(identifier_names) > 0) AS identifiers, count(ext) AS ext
FROM sellers_files WHERE ${LATEST}`,
      },
      // buyers.json (IAB Tech Lab buyers.json 1.0): asked of every ad system beside its sellers.json.
      {
        key: 'sellers.buyers_json',
        title: 'Ad systems publishing a buyers.json (latest night)',
        about:
          "View ad_system_buyers: every ad system named by a kept record is asked for https://AD_SYSTEM/buyers.json once a night. Per ad system whose answer was a body (not a 404 or a failure): the status of its buyers.json (ok and valid: a buyers array read whole; invalid_json: broken or cut JSON, the entries before the break kept; too_large: cut at the byte cap, never valid), the entries read, and the entries per buyer_type as written. The 25 with most entries; the ad systems without one are counted in the data-quality section's file statuses.",
        sql: `SELECT ad_system_domain, buyers_json_status AS status, publishes, buyers,
  (SELECT string_agg(k || ' ' || v, ', ' ORDER BY v DESC, k) FROM (SELECT unnest(map_keys(buyer_types)) AS k, unnest(map_values(buyer_types)) AS v)) AS buyer_types
FROM ad_system_buyers WHERE ${LATEST} AND buyers_json_status IN ('ok', 'empty', 'invalid_json', 'not_buyers_json', 'html', 'too_large')
ORDER BY buyers DESC, ad_system_domain LIMIT 25`,
        chart: { kind: 'hbar', x: 'buyers', y: 'ad_system_domain', xTitle: 'Buyers listed in buyers.json', yTitle: 'Ad system' },
      },
      {
        key: 'sellers.buyer_types',
        title: 'Buyers by type in the buyers.json files (latest night)',
        about: 'Entries of the valid buyers.json files read that night (a buyers array read whole), by buyer_type as written, with the ad systems listing each type and the share marked confidential.',
        sql: `SELECT coalesce(b.buyer_type, '(none)') AS buyer_type, count(*) AS buyers, count(DISTINCT b.ad_system_domain) AS ad_systems,
  round(count(*) FILTER (WHERE b.is_confidential) / count(*), 4) AS confidential_share
FROM buyers b JOIN files f ON f.snapshot_date = b.snapshot_date AND f.subject = b.ad_system_domain AND f.file_kind = 'buyers.json' AND f.valid
WHERE b.${LATEST} GROUP BY 1 ORDER BY buyers DESC, buyer_type`,
        chart: { kind: 'bar', x: 'buyer_type', y: 'buyers', xTitle: 'buyer_type', yTitle: 'Buyers' },
      },
    ],
  },
  {
    key: 'quality',
    title: '9. Data quality',
    intro: 'What the crawl met: the outcome of every file, how it was obtained, and the problems the parsers reported.',
    figures: [
      {
        key: 'quality.file_status',
        title: 'File outcomes (latest night)',
        about: 'Files per kind and status (what the content was, or why there was none).',
        sql: `SELECT file_kind, status, count(*) AS files FROM files WHERE ${LATEST} GROUP BY ALL ORDER BY file_kind, files DESC, status`,
        chart: { kind: 'stacked', x: 'file_kind', y: 'files', color: 'status', xTitle: 'File kind', yTitle: 'Files' },
      },
      {
        key: 'quality.obtained',
        title: 'How files were obtained, per night',
        about: "fetched (a new body), revalidated (304), reused (a fresh copy, no request: --reuse-fresh), carried_forward (the night's request failed; the earlier copy stands).",
        sql: `SELECT snapshot_date, coalesce(obtained, 'none') AS obtained, count(*) AS files FROM files WHERE in_window(snapshot_date) GROUP BY ALL ORDER BY snapshot_date, obtained`,
        chart: { kind: 'stacked', x: 'snapshot_date', y: 'files', color: 'obtained', xTitle: 'Snapshot date', yTitle: 'Files' },
      },
      {
        key: 'quality.fetch_outcomes',
        title: 'Fetch outcomes (latest night)',
        about: 'Requests by HTTP status class, or by the error that ended them (fetches.error).',
        sql: `SELECT file_kind, CASE WHEN error IS NOT NULL THEN error WHEN status_code IS NULL THEN 'no answer' ELSE (status_code // 100)::VARCHAR || 'xx' END AS outcome, count(*) AS requests
FROM fetches WHERE ${LATEST} GROUP BY ALL ORDER BY file_kind, requests DESC, outcome`,
        chart: { kind: 'stacked', x: 'file_kind', y: 'requests', color: 'outcome', xTitle: 'File kind', yTitle: 'Requests' },
      },
      {
        key: 'quality.parse_issues',
        title: 'Parse issues (latest night)',
        about: 'The 25 most frequent parse issue codes, with the files they occur in.',
        sql: `SELECT file_kind, severity, code, count(*) AS issues, count(DISTINCT subject) AS files FROM parse_issues WHERE ${LATEST}
GROUP BY ALL ORDER BY issues DESC, file_kind, code LIMIT 25`,
        chart: { kind: 'hbar', x: 'issues', y: 'code', xTitle: 'Issues', yTitle: 'Code' },
      },
    ],
  },
  // --- Consent signals beyond robots.txt (view site_ai_consent; docs/reference/ai-signals.md) ---
  {
    key: 'consent',
    title: '10. Consent signals beyond robots.txt',
    intro:
      "What the listed sites say about AI use of their content besides the crawler rules: robots.txt's Content-Signal ai-train and RSL License lines, the W3C TDMRep reservation (/.well-known/tdmrep.json, or a tdm-reservation header), and llms.txt, from the view site_ai_consent. The robots.txt signals count among the sites whose robots.txt was read (its content seen); a TDM reservation among all listed sites; llms.txt among the sites asked for it (crawl --ai-signals). A night without --ai-signals sees a TDM reservation only in headers, and no llms.txt.",
    figures: [
      {
        key: 'consent.adoption',
        title: 'Adoption of each consent signal (latest night)',
        about:
          "Sites giving each signal and their share of the sites it could be seen on (asked). ai_agents_blocked_by_name: a robots.txt group naming an AI agent (purpose training, data, assistant or agent) blocks it fully; content_signal_ai_train_no: Content-Signal ai-train=no; tdm_reservation: TDM rights reserved for '/' (1); rsl_license: a License line; llms_txt: a Markdown llms.txt served.",
        sql: `WITH s AS (SELECT * FROM site_ai_consent WHERE ${LATEST}), a AS (
  SELECT 1 AS o, 'ai_agents_blocked_by_name' AS signal, count(*) FILTER (WHERE ai_agents_blocked_by_name > 0) AS sites, count(ai_agents_blocked_by_name) AS asked FROM s
  UNION ALL SELECT 2, 'content_signal_ai_train_no', count(*) FILTER (WHERE content_signal_ai_train = 'no'), count(ai_agents_blocked_by_name) FROM s
  UNION ALL SELECT 3, 'tdm_reservation', count(*) FILTER (WHERE tdm_reservation = 1), count(*) FROM s
  UNION ALL SELECT 4, 'rsl_license', count(rsl_license_url), count(ai_agents_blocked_by_name) FROM s
  UNION ALL SELECT 5, 'llms_txt', count(*) FILTER (WHERE llms_txt), count(llms_txt) FROM s
)
SELECT signal, sites, asked, CASE WHEN asked > 0 THEN sites / asked END AS share FROM a ORDER BY o`,
        chart: { kind: 'hbar', x: 'share', y: 'signal', xTitle: 'Sites giving the signal (% of those asked)', yTitle: 'Signal', percent: true },
      },
      {
        key: 'consent.agreement',
        title: 'Do the opt-out signals agree? (latest night)',
        about:
          "For each pair of opt-out signals, among the sites whose robots.txt was read: the sites giving both, only the first, only the second. A site that reserves TDM rights but blocks no AI agent by name (only_a of tdm_reservation × ai_agents_blocked_by_name) says no in one place and nothing in the other; the reverse is only_b. ai_agent_blocked_fully: some AI agent is blocked fully, by name or through the '*' group (agent_sites): its only_a are the sites that reserve TDM rights yet let every AI crawler in.",
        sql: `WITH s AS (
  SELECT c.tdm_reservation = 1 AS tdm, c.ai_agents_blocked_by_name > 0 AS named, c.content_signal_ai_train = 'no' AS train_no, c.rsl_license_url IS NOT NULL AS rsl,
         c.ai_agents_blocked_by_name > 0 OR a.blocked = 'full' AS any_full
  FROM site_ai_consent c JOIN agent_sites a ON a.snapshot_date = c.snapshot_date AND a.host = c.host
  WHERE c.${LATEST} AND c.ai_agents_blocked_by_name IS NOT NULL
), p AS (
  SELECT 1 AS o, 'tdm_reservation' AS signal_a, 'ai_agents_blocked_by_name' AS signal_b, coalesce(tdm, false) AS a, named AS b FROM s
  UNION ALL SELECT 2, 'tdm_reservation', 'content_signal_ai_train_no', coalesce(tdm, false), coalesce(train_no, false) FROM s
  UNION ALL SELECT 3, 'content_signal_ai_train_no', 'ai_agents_blocked_by_name', coalesce(train_no, false), named FROM s
  UNION ALL SELECT 4, 'rsl_license', 'ai_agents_blocked_by_name', rsl, named FROM s
  UNION ALL SELECT 5, 'tdm_reservation', 'ai_agent_blocked_fully', coalesce(tdm, false), any_full FROM s
)
SELECT signal_a, signal_b, count(*) FILTER (WHERE a AND b) AS both, count(*) FILTER (WHERE a AND NOT b) AS only_a,
  count(*) FILTER (WHERE b AND NOT a) AS only_b, count(*) FILTER (WHERE NOT a AND NOT b) AS neither, count(*) AS sites
FROM p GROUP BY ALL ORDER BY any_value(o)`,
      },
    ],
  },
  // --- end of consent signals ---
];
