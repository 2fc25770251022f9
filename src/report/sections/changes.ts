/** The report's section '7. Changes': its figures, each a query over the shipped views (sql/views.sql). */
import type { SectionDef } from '../figure-types.js';
import { LATEST } from './nights.js';

/**
 * Per listed site and night of the window, its ads.txt against its previous night in the window:
 * 'gained' when it is declaring now and was not, 'lost' the other way. Declaring as in section 1
 * (view listed_sites, whatever the provenance: a copy carried forward after a failed request
 * still declares, so a night the site could not be read is no change when an earlier copy stands).
 */
export const SITE_CHANGES_SQL = `SELECT snapshot_date, site, rank, CASE WHEN declaring THEN 'gained' ELSE 'lost' END AS change, status, obtained, previous_date, previous_status
FROM (
  SELECT snapshot_date, site, rank, ads_txt_status AS status, ads_txt_obtained AS obtained, declaring,
    lag(snapshot_date) OVER w AS previous_date, lag(ads_txt_status) OVER w AS previous_status, lag(declaring) OVER w AS previously_declaring
  FROM listed_sites WHERE in_window(snapshot_date)
  WINDOW w AS (PARTITION BY site ORDER BY snapshot_date)
)
WHERE previous_date IS NOT NULL AND declaring IS DISTINCT FROM previously_declaring`;

export const changesSection: SectionDef = {
  key: 'changes',
  title: '7. Changes',
  intro:
    "Records and sellers: what changed between consecutive observations of the same file (views record_changes and seller_changes); a night a file could not be read does not count as a change. Sites: a listed site's ads.txt on a night against its previous night in the window, declaring or not as in section 1 (view listed_sites, whatever the provenance: a copy carried forward after a failed request still declares).",
  figures: [
    {
      key: 'changes.per_night',
      title: 'Records and sellers added and removed per night',
      about:
        "Per night: ads.txt / app-ads.txt records added and removed since the previous observation of their file, sellers.json entries added and removed, and listed sites that started or stopped declaring an ads.txt since their previous night: the day-to-day difference of section 1's declaring count, for the sites listed both nights.",
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
        "The listed sites counted in sites_gained_ads_txt and sites_lost_ads_txt above: per night, the site, its rank, its ads.txt status that night and on its previous night (declaring as in section 1). At most the 50 best-ranked sites per night and direction; the counts above have them all.",
      sql: `SELECT snapshot_date, change, site, rank, previous_status, status, obtained, previous_date
FROM report_site_changes
QUALIFY row_number() OVER (PARTITION BY snapshot_date, change ORDER BY rank NULLS LAST, site) <= 50
ORDER BY snapshot_date DESC, change, rank NULLS LAST, site`,
      series: true,
    },
  ],
};
