/** The report's section '1. Adoption': its figures, each a query over the shipped views (sql/views.sql). */
import type { SectionDef } from '../figure-types.js';
import { ctvAppSql, CTV_ABOUT } from '../ctv.js';

export const adoptionSection: SectionDef = {
  key: 'adoption',
  title: '1. Adoption',
  intro: 'How many listed sites serve an ads.txt, and how many apps reach an app-ads.txt through their developer site.',
  figures: [
    {
      key: 'adoption.ads_txt_by_rank',
      title: 'ads.txt declaring, valid and placeholder-only sites, by rank bucket',
      about:
        "Listed sites per night and rank bucket (disjoint), their root ads.txt (view listed_sites). Declaring: a text body (not HTML) with at least one record other than the placeholder; an invalid_content_type file counts, and is counted again in content_type_violation. Valid: declaring, and valid by the spec (text/plain, read whole). Placeholder only: records, all of them the placeholder. Shares are of the bucket's sites.",
      sql: `SELECT * EXCLUDE (first_rank), round(declaring / sites, 4) AS declaring_share, round(valid / sites, 4) AS valid_share, round(placeholder_only / sites, 4) AS placeholder_only_share
FROM (
SELECT snapshot_date, rank_bucket(rank) AS rank_bucket, count(*) AS sites,
  count(*) FILTER (WHERE declaring) AS declaring,
  count(*) FILTER (WHERE valid) AS valid,
  count(*) FILTER (WHERE placeholder_only) AS placeholder_only,
  count(*) FILTER (WHERE content_type_violation) AS content_type_violation,
  min(coalesce(rank, 2147483647)) AS first_rank
FROM listed_sites WHERE in_window(snapshot_date) GROUP BY ALL
) ORDER BY snapshot_date, first_rank`,
      chart: { kind: 'line', x: 'snapshot_date', y: 'declaring_share', color: 'rank_bucket', xTitle: 'Snapshot date', yTitle: 'Sites declaring an ads.txt (% of bucket)', percent: true },
      shareOf: { declaring_share: ['declaring', 'sites'], valid_share: ['valid', 'sites'], placeholder_only_share: ['placeholder_only', 'sites'] },
    },
    {
      key: 'adoption.ads_txt_top_n',
      title: 'ads.txt declaring and valid sites in the top N (cumulative)',
      about:
        'The same counts as above over the listed sites ranked N or better (top 1k includes the top 100), for each bucket bound, per night: what studies of the top 1k, 10k, … lists report.',
      sql: `SELECT *, round(declaring / sites, 4) AS declaring_share, round(valid / sites, 4) AS valid_share
FROM (
SELECT s.snapshot_date, b.top_n, count(*) AS sites,
  count(*) FILTER (WHERE s.declaring) AS declaring,
  count(*) FILTER (WHERE s.valid) AS valid,
  count(*) FILTER (WHERE s.placeholder_only) AS placeholder_only
FROM listed_sites s JOIN (SELECT unnest(rank_top_n()) AS top_n) b ON s.rank <= b.top_n
WHERE in_window(s.snapshot_date) GROUP BY ALL
) ORDER BY snapshot_date, top_n`,
      shareOf: { declaring_share: ['declaring', 'sites'], valid_share: ['valid', 'sites'] },
    },
    {
      key: 'adoption.app_ads_txt_by_store',
      title: 'app-ads.txt by store',
      about: `Listed apps per night and store (Samsung's TV store, 'samsung (TV)', apart from its Galaxy Store). Developer site: the store listing named one (or the list did). Declaring / valid: the app-ads.txt of the developer host used (after the subdomain → parent fallback), read as for ads.txt (view listed_apps). ${CTV_ABOUT}`,
      sql: `SELECT *, round(declaring / apps, 4) AS declaring_share, round(valid / apps, 4) AS valid_share
FROM (
SELECT a.snapshot_date, CASE WHEN a.store = 'samsung' AND ${ctvAppSql('a')} THEN 'samsung (TV)' ELSE coalesce(a.store, 'other') END AS store,
  ${ctvAppSql('a')} AS ctv, count(*) AS apps,
  count(*) FILTER (WHERE a.developer_url IS NOT NULL) AS developer_site,
  count(*) FILTER (WHERE l.declaring) AS declaring,
  count(*) FILTER (WHERE l.valid) AS valid
FROM apps a
JOIN listed_apps l ON l.snapshot_date = a.snapshot_date AND l.app = a.store_url
WHERE in_window(a.snapshot_date) GROUP BY ALL
) ORDER BY snapshot_date, apps DESC, store`,
      chart: { kind: 'bar', x: 'store', y: 'valid_share', xTitle: 'Store', yTitle: 'Apps with a valid app-ads.txt (% of apps)', percent: true },
      shareOf: { declaring_share: ['declaring', 'apps'], valid_share: ['valid', 'apps'] },
    },
  ],
};
