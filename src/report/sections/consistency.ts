/** The report's section '4. Supply-chain consistency': its figures, each a query over the shipped views (sql/views.sql). */
import type { SectionDef } from '../figure-types.js';
import { latest, VIEWED } from './nights.js';
import { consistencyNightsSql } from '../night-summary.js';

export const consistencySection: SectionDef = {
  key: 'consistency',
  title: '4. Supply-chain consistency',
  intro:
    "Records of valid files checked against the ad system's sellers.json (view seller_match): seller ids the file does not list, relationships that contradict seller_type, and OWNERDOMAIN against the seller's domain.",
  figures: [
    {
      key: 'consistency.by_ad_system',
      title: 'Records checked against sellers.json, per ad system (latest night)',
      about:
        "Per scope (root: the listed sites' own ads.txt; referral: subdomain and partner files; app: app-ads.txt; view file_scope_base) and ad system. Checkable: the ad system's sellers.json was read whole and valid (seller_checkable). Missing: its seller id is not listed. Relationship mismatch: DIRECT for a seller typed INTERMEDIARY, or RESELLER for one typed PUBLISHER. Owner mismatch: a DIRECT record whose OWNERDOMAIN (or site) differs from the seller's domain. The 25 ad systems with most records in each scope.",
      sql: `SELECT * REPLACE (round(missing / nullif(checkable, 0), 4) AS missing_share)
FROM (
SELECT s.scope, m.ad_system_domain, any_value(m.sellers_json_status) AS sellers_json_status, count(*) AS records,
  count(*) FILTER (WHERE m.seller_checkable) AS checkable,
  count(*) FILTER (WHERE m.seller_missing) AS missing,
  NULL::DOUBLE AS missing_share,
  count(*) FILTER (WHERE m.relationship_consistent = false) AS relationship_mismatch,
  count(*) FILTER (WHERE m.owner_domain_consistent = false) AS owner_mismatch
FROM seller_match m
JOIN file_scope_base s ON s.snapshot_date = m.snapshot_date AND s.subject = m.subject AND s.file_kind = m.file_kind
WHERE ${latest('m.snapshot_date')} GROUP BY ALL
)
QUALIFY row_number() OVER (PARTITION BY scope ORDER BY records DESC, ad_system_domain) <= 25
ORDER BY scope DESC, records DESC, ad_system_domain`,
      chart: { kind: 'hbar', x: 'missing', y: 'ad_system_domain', color: 'scope', xTitle: 'Records whose seller id sellers.json does not list', yTitle: 'Ad system' },
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
      title: 'Consistency of the root records over time',
      about: "The root records of valid files per night (the listed sites' own ads.txt; the latest night's referral and app records are in the first figure of this section): checkable, missing, relationship and owner mismatches, and the missing share of checkable records.",
      // The nights with a night summary from it, the others from the view (night-summary.ts).
      sql: `SELECT *, round(missing / nullif(checkable, 0), 4) AS missing_share
FROM (
-- A night without a record of a valid file has no row, as in the view's grouping.
SELECT snapshot_date, records, checkable, missing, relationship_mismatch, owner_mismatch FROM report_night_summary WHERE records > 0
UNION ALL
${consistencyNightsSql(VIEWED)}
) ORDER BY snapshot_date`,
      chart: { kind: 'line', x: 'snapshot_date', y: 'missing_share', xTitle: 'Snapshot date', yTitle: 'Checkable root records with a missing seller id (%)', percent: true },
      shareOf: { missing_share: ['missing', 'checkable'] },
    },
  ],
};
