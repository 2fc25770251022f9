/** The report's section '2. Variables': its figures, each a query over the shipped views (sql/views.sql). */
import type { SectionDef } from '../figure-types.js';
import { LATEST } from './nights.js';
import { ctvAppSql, CTV_ABOUT } from '../ctv.js';

export const variablesSection: SectionDef = {
  key: 'variables',
  title: '2. Variables',
  intro: 'The ads.txt 1.1 variables that text files (ads.txt and app-ads.txt bodies that are not HTML) declare: who owns and manages the inventory, and where it is delegated. Each scope apart: the listed sites\' root files, the files reached from them (subdomains, partners), the apps\' files.',
  figures: [
    {
      key: 'variables.declared',
      title: 'Files declaring each variable',
      about:
        `Text files (view file_scope_base: a 2xx body that is not HTML, adsnap_text_body) declaring the variable at least once, and their share of the text files of their group. Groups are scopes: 'ads.txt (root)', the listed sites' own files; 'ads.txt (referral)', the subdomain and partner files reached from them; app-ads.txt split by the apps that use the file: 'CTV' when one of them is a CTV app, else 'not CTV'. ${CTV_ABOUT}`,
      sql: `WITH text_files AS (
SELECT f.snapshot_date, f.subject, f.file_kind,
  CASE WHEN f.scope <> 'app' THEN 'ads.txt (' || f.scope || ')'
       WHEN f.subject IN (SELECT a.subject FROM apps a WHERE a.snapshot_date = f.snapshot_date AND ${ctvAppSql('a')}) THEN 'app-ads.txt (CTV)'
       ELSE 'app-ads.txt (not CTV)' END AS file_group
FROM file_scope_base f WHERE in_window(f.snapshot_date) AND adsnap_text_body(f.status)
), declared AS (
SELECT DISTINCT snapshot_date, subject, file_kind, upper(name) AS name FROM ads_variables WHERE in_window(snapshot_date)
), names AS (SELECT unnest(['OWNERDOMAIN', 'MANAGERDOMAIN', 'SUBDOMAIN', 'INVENTORYPARTNERDOMAIN', 'CONTACT']) AS name)
SELECT s.snapshot_date, s.file_group, n.name, count(*) AS text_files, count(d.name) AS files_declaring,
round(count(d.name) / count(*), 4) AS share
FROM text_files s CROSS JOIN names n
LEFT JOIN declared d ON d.snapshot_date = s.snapshot_date AND d.subject = s.subject AND d.file_kind = s.file_kind AND d.name = n.name
GROUP BY ALL ORDER BY s.snapshot_date, s.file_group, n.name`,
      chart: { kind: 'line', x: 'snapshot_date', y: 'share', color: 'name', xTitle: 'Snapshot date', yTitle: 'Text files declaring it (%)', percent: true },
      shareOf: { share: ['files_declaring', 'text_files'] },
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
};
