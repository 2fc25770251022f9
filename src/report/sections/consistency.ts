/** The report's section '4. Supply-chain consistency': its figures, each a query over the shipped views (sql/views.sql). */
import type { SectionDef } from '../figure-types.js';
import { LATEST } from './nights.js';

export const consistencySection: SectionDef = {
  key: 'consistency',
  title: '4. Supply-chain consistency',
  intro:
    "Records checked against the ad system's sellers.json (view ad_system_seller_checks, over seller_match_all): seller ids the file does not list, relationships that contradict seller_type, and OWNERDOMAIN against the seller's domain. Records, checkable and not found are the words of docs/reference/figures.md, counted over the population the headline counts (the root records: the declaring listed sites' own ads.txt, placeholder left out), so the latest night's root totals here are the headline's. The figures on where sellers.json was asked count the records of valid files only, a narrower population, and say so with the headline's number beside theirs.",
  figures: [
    {
      key: 'consistency.by_ad_system',
      title: 'Root, referral and app records checked against sellers.json, per ad system (latest night)',
      about:
        "Per scope (root records: the declaring listed sites' own ads.txt; referral records: subdomain and partner files; app records: app-ads.txt; view scoped_records, placeholder left out) and ad system; summed over the root scope's ad systems, records, checkable and missing are the headline's root records, checkable root records and seller ids not found. Checkable: the ad system's sellers.json was read whole and valid (seller_checkable). Missing: its seller id is not listed. Relationship mismatch: DIRECT for a seller typed INTERMEDIARY, or RESELLER for one typed PUBLISHER. Owner mismatch: a DIRECT record whose OWNERDOMAIN (or site) differs from the seller's domain. The 25 ad systems with most records in each scope, after the scope's total over every ad system (ad_system_domain empty), which for the root scope is the headline's.",
      // Each scope's total first (ad_system_domain NULL: every ad system of the scope, not only the 25 listed).
      sql: `WITH c AS (SELECT * FROM ad_system_seller_checks WHERE ${LATEST}), rows AS (
SELECT scope, ad_system_domain, sellers_json_status, records, checkable, missing, relationship_mismatch, owner_mismatch FROM c
QUALIFY row_number() OVER (PARTITION BY scope ORDER BY records DESC, ad_system_domain) <= 25
UNION ALL
SELECT scope, NULL, NULL, sum(records)::BIGINT, sum(checkable)::BIGINT, sum(missing)::BIGINT, sum(relationship_mismatch)::BIGINT, sum(owner_mismatch)::BIGINT FROM c GROUP BY scope
)
SELECT scope, ad_system_domain, sellers_json_status, records, checkable, missing, round(missing / nullif(checkable, 0), 4) AS missing_share, relationship_mismatch, owner_mismatch
FROM rows
ORDER BY scope DESC, ad_system_domain IS NOT NULL, records DESC, ad_system_domain`,
      chart: { kind: 'hbar', x: 'missing', y: 'ad_system_domain', color: 'scope', only: { keep: (r) => r.ad_system_domain !== null, unit: 'rows', why: "each scope's total (every ad system) is in the table, not drawn" }, xTitle: 'Records whose seller id sellers.json does not list', yTitle: 'Ad system' },
      shareOf: { missing_share: ['missing', 'checkable'] },
    },
    {
      key: 'consistency.sellers_location_effect',
      title: 'Records of valid files (every scope) checkable at the default sellers.json location and with the locations table (latest night; the headline\'s checkable root records beside)',
      about:
        "View ad_system_coverage, all ad systems: the records of valid files (every scope: a narrower population than the headline's root records, which counts the declaring files whether valid or not, and a wider one, with referral and app files; checkable_root_records_headline is the headline's checkable root records, beside for reference), and how many can be checked against their ad system's sellers.json (read whole and valid). 'default location only': the records of ad systems whose sellers.json was asked at https://AD_SYSTEM/sellers.json (the ad systems asked elsewhere count as not checkable: the default URL was not asked, and google.com answers 404 there; so do those with no request known). 'with the locations table': every checkable record, the ad systems asked at their location (data/sellers-locations.tsv, --sellers-location) included. Where a file was asked is the request's URL, not the URL finally read: a redirect from the default location is not a location.",
      sql: `WITH t AS (
SELECT coalesce(sum(records), 0)::BIGINT AS records,
  -- Only the ad systems whose sellers.json was asked at the default URL: one never asked (no request known) is at no location.
  coalesce(sum(checkable) FILTER (WHERE at_spec_location), 0)::BIGINT AS at_default,
  coalesce(sum(checkable), 0)::BIGINT AS with_locations,
  count(*) FILTER (WHERE NOT coalesce(at_spec_location, true)) AS ad_systems_at_a_location
FROM report_coverage
), h AS (
-- The headline's word, a wider population (root records of declaring files, valid or not; no referral or app records): beside, not compared.
SELECT coalesce(max(denominator) FILTER (WHERE key = 'seller_id_not_found_root'), 0)::BIGINT AS checkable_root_records_headline FROM report_headline
)
SELECT * FROM (
SELECT 'default location only' AS reading, records, at_default AS checkable, round(at_default / nullif(records, 0), 4) AS checkable_share, ad_systems_at_a_location, h.checkable_root_records_headline FROM t, h
UNION ALL
SELECT 'with the locations table', records, with_locations, round(with_locations / nullif(records, 0), 4), ad_systems_at_a_location, h.checkable_root_records_headline FROM t, h
) WHERE records > 0 ORDER BY checkable, reading`,
      chart: { kind: 'bar', x: 'reading', y: 'checkable', xTitle: 'Where sellers.json was asked', yTitle: 'Records checkable against sellers.json' },
      shareOf: { checkable_share: ['checkable', 'records'] },
    },
    {
      key: 'consistency.sellers_location',
      title: 'Records of valid files (every scope) checkable because sellers.json was read where the ad system publishes it (latest night)',
      about:
        "View ad_system_coverage: the ad systems whose sellers.json was served by a location other than https://AD_SYSTEM/sellers.json (the spec's location is asked first; when it gives no readable file, the entries of data/sellers-locations.tsv or --sellers-location, in order): `served_by` says which served it (sellers_files.location), `sellers_json_url` the URL asked there (not the one finally read after redirects), its status, and the records of valid files naming them: checkable at the default location (none: it gave no readable file) and with the location (the file read there whole and valid). The 25 with most records.",
      sql: `SELECT ad_system_domain, CASE WHEN at_spec_location THEN 'spec location' ELSE 'locations table' END AS served_by, sellers_json_url, sellers_json_status AS status, records, 0::BIGINT AS checkable_at_default_location, checkable AS checkable_with_location
FROM report_coverage WHERE NOT coalesce(at_spec_location, true)
ORDER BY records DESC, ad_system_domain LIMIT 25`,
      chart: { kind: 'hbar', x: 'checkable_with_location', y: 'ad_system_domain', xTitle: 'Records checkable against the sellers.json read at the location', yTitle: 'Ad system' },
    },
    {
      key: 'consistency.over_time',
      title: 'Consistency of the root records over time',
      about: "The root records per night (the declaring listed sites' own ads.txt, placeholder left out: the headline's population, so the latest night's records, checkable and missing are the headline's; the latest night's referral and app records are in the first figure of this section): checkable, missing, relationship and owner mismatches, and the missing share of checkable records.",
      // View ad_system_seller_checks: derived rows for the nights that have them, the definition's for the others.
      sql: `SELECT snapshot_date, sum(records)::BIGINT AS records, sum(checkable)::BIGINT AS checkable, sum(missing)::BIGINT AS missing,
  sum(relationship_mismatch)::BIGINT AS relationship_mismatch, sum(owner_mismatch)::BIGINT AS owner_mismatch,
  round(sum(missing) / nullif(sum(checkable), 0), 4) AS missing_share
FROM ad_system_seller_checks WHERE in_window(snapshot_date) AND scope = 'root'
GROUP BY ALL ORDER BY snapshot_date`,
      chart: { kind: 'line', x: 'snapshot_date', y: 'missing_share', xTitle: 'Snapshot date', yTitle: 'Checkable root records with a missing seller id (%)', percent: true },
      shareOf: { missing_share: ['missing', 'checkable'] },
    },
  ],
};
