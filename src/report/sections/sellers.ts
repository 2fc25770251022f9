/** The report's section '8. sellers.json': its figures, each a query over the shipped views (sql/views.sql). */
import type { SectionDef } from '../figure-types.js';
import { LATEST, latest } from './nights.js';

export const sellersSection: SectionDef = {
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
WHERE ${latest('f.snapshot_date')} AND f.file_kind = 'sellers.json'
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
WHERE ${latest('b.snapshot_date')} GROUP BY 1 ORDER BY buyers DESC, buyer_type`,
      chart: { kind: 'bar', x: 'buyer_type', y: 'buyers', xTitle: 'buyer_type', yTitle: 'Buyers' },
    },
  ],
};
