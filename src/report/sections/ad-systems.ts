/** The report's section '3. Ad systems': its figures, each a query over the shipped views (sql/views.sql). */
import type { SectionDef } from '../figure-types.js';
import { LATEST, latest } from './nights.js';

export const adSystemsSection: SectionDef = {
  key: 'ad_systems',
  title: '3. Ad systems',
  intro: 'The ad systems that files authorize, and how they are named.',
  figures: [
    {
      key: 'ad_systems.top',
      title: 'Ad systems named by most declaring sites (latest night)',
      about:
        "View ad_system_sites, over the root records of the declaring listed sites: per ad system, its company (view ad_system_companies; the domain itself when it names none), the sites naming it (any relationship, and DIRECT), their share of the declaring sites, its records and their DIRECT share; then, over every scope (root, referral and app files; view ad_system_file_counts), the files naming it and the share of its records with a certification authority id. The 25 named by most sites.",
      sql: `WITH files_all AS (
SELECT ad_system_domain, files, round(cert_records / records, 4) AS cert_id_share
FROM ad_system_file_counts WHERE ${LATEST}
)
SELECT a.ad_system_domain, a.company, a.sites, a.sites_direct, round(a.site_share, 4) AS site_share, a.records,
round(a.direct_records / a.records, 4) AS direct_share, f.files, f.cert_id_share
FROM ad_system_sites a LEFT JOIN files_all f USING (ad_system_domain)
WHERE ${latest('a.snapshot_date')}
ORDER BY a.sites DESC, a.records DESC, a.ad_system_domain LIMIT 25`,
      chart: { kind: 'hbar', x: 'sites', y: 'ad_system_domain', xTitle: 'Declaring listed sites naming the ad system', yTitle: 'Ad system' },
    },
    {
      key: 'ad_systems.companies',
      title: 'Companies named by most declaring sites (latest night)',
      about:
        "View ad_company_sites: the ad system domains of one company (view ad_system_companies) counted together, over the root records of the declaring listed sites: its domains named, the sites naming any of them (any relationship, and DIRECT), their share of the declaring sites, and the records. The 25 named by most sites.",
      sql: `SELECT company, ad_system_domains, sites, sites_direct, round(site_share, 4) AS site_share, records
FROM ad_company_sites WHERE ${LATEST}
ORDER BY sites DESC, records DESC, company LIMIT 25`,
      chart: { kind: 'hbar', x: 'sites', y: 'company', xTitle: 'Declaring listed sites naming the company', yTitle: 'Company' },
    },
    {
      key: 'ad_systems.relationship',
      title: 'DIRECT and RESELLER records by scope over time',
      about: "Records of declaring files per night, scope (root: the listed sites' own ads.txt; referral: subdomain and partner files; app: app-ads.txt) and relationship, the placeholder left out (view scope_relationships, counted from scoped_records), and the share of each in its scope.",
      sql: `SELECT snapshot_date, scope, relationship, scope || ' ' || relationship AS series, records,
round(records / sum(records) OVER (PARTITION BY snapshot_date, scope), 4) AS share
FROM scope_relationships WHERE in_window(snapshot_date)
ORDER BY snapshot_date, scope, relationship`,
      chart: { kind: 'line', x: 'snapshot_date', y: 'share', color: 'series', xTitle: 'Snapshot date', yTitle: 'Share of the scope\'s records (%)', percent: true },
    },
  ],
};
