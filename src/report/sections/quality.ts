/** The report's section '9. Data quality': its figures, each a query over the shipped views (sql/views.sql). */
import type { SectionDef } from '../figure-types.js';
import { LATEST, latest } from './nights.js';

export const qualitySection: SectionDef = {
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
      about: "The 25 most frequent parse issue codes, with the files they occur in, per scope: an ads.txt's root (a listed site's own) or referral (subdomain, partner), app for app-ads.txt (view parse_issue_counts, over file_scope_base); robots.txt and sellers.json by their kind.",
      sql: `SELECT scope, file_kind, severity, code, issues, files FROM parse_issue_counts WHERE ${LATEST}
ORDER BY issues DESC, scope, file_kind, code LIMIT 25`,
      chart: { kind: 'hbar', x: 'issues', y: 'code', xTitle: 'Issues', yTitle: 'Code' },
    },
  ],
};
