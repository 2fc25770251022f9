/** The report's section '5. Pooling': its figures, each a query over the shipped views (sql/views.sql). */
import type { SectionDef } from '../figure-types.js';
import { LATEST, latest, VIEWED } from './nights.js';
import { OWNER_TABLE } from '../owners.js';
import { POOLED_TOP, pooledTopSql, poolingNightsSql } from '../../sql/derived.js';

export const poolingSection: SectionDef = {
  key: 'pooling',
  title: '5. Pooling',
  intro:
    `A seller account claimed as DIRECT by publishers that are not the same business: the signal of pooled (shared or resold) accounts, as in the IEEE S&P 2024 study of ads.txt and sellers.json misrepresentation. A file's owner is the first OWNERDOMAIN it declares, else the site itself, reduced to its registrable domain (its host, then the Public Suffix List's domain, private section included, as adsnap keys sites: www.x.com and x.com are one owner, news.x.co.uk is x.co.uk). The reduction is the table ${OWNER_TABLE} that setup_sql loads from pooling.owner_domains.csv beside the report (computed with tldts). A DIRECT account should belong to one owner, the one its sellers.json entry names.`,
  figures: [
    {
      key: 'pooling.worst',
      title: 'Seller ids claimed DIRECT by the most owners, in records of valid files (latest night)',
      about:
        "Per (ad system, seller id) in DIRECT records of valid files: the distinct sites and owners (registrable domains) claiming it, how many of those owners match the domain its sellers.json entry names (seller_match.owner_domain_consistent), and that entry's name and domain. Listed when two or more owners claim it. The 25 with most owners.",
      // The latest night's rows: its derived ones when it has a current set, else the same SQL over
      // its records (pooledTopSql, src/sql/derived.ts).
      sql: `SELECT * EXCLUDE (snapshot_date) FROM (
SELECT * FROM pooled_seller_top WHERE ${LATEST} AND NOT report_viewed(snapshot_date)
UNION ALL
SELECT * FROM (
${pooledTopSql((c) => `${latest(c)} AND report_viewed(${c})`)}
)
) ORDER BY owners DESC, sites DESC, ad_system_domain, seller_account_id LIMIT ${POOLED_TOP}`,
      tableRows: POOLED_TOP,
    },
    {
      key: 'pooling.over_time',
      title: 'Pooled seller ids over time, in DIRECT records of valid files',
      about: "Per night: (ad system, seller id) pairs claimed DIRECT by two or more owners (as above), and the DIRECT records of valid files (ads.txt and app-ads.txt, every scope) that claim them: a population of its own, not the headline's root records (it leaves out the declaring files that are not valid, and takes in referral and app files), and not checked against sellers.json.",
      // The nights with a current derived set from their night summary, the others from the records (src/sql/derived.ts).
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
};
