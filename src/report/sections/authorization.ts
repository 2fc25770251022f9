/**
 * The report's section '11. Authorization': the verdict of the IAB Tech Lab Supply Chain
 * Validation guidance §3.5 for what the night's files name, through the table macro
 * authorization_at (sql/views.sql; the same verdict `adsnap verify` gives a bid request).
 */
import type { SectionDef } from '../figure-types.js';

export const authorizationSection: SectionDef = {
  key: 'authorization',
  title: '11. Authorization',
  intro:
    "Would a buyer find the path authorized? The guidance's §3.5 verdict (authorized, unauthorized, nonparticipating, inconclusive, or not_in_snapshot) for each pair the night's files name, as `adsnap verify` would give it for a bid request (docs/guide/verify.md).",
  figures: [
    {
      key: 'authorization.sellers_json',
      title: "sellers.json PUBLISHER entries against their site's ads.txt (latest night)",
      about:
        "Table macro authorization_at over the latest night, the rows named by a sellers.json: each PUBLISHER or BOTH entry of an ad system's readable sellers.json, asked as a request of the site its `domain` names with that ad system and seller id. authorized: the site's ads.txt lists the pair (exactly or case-folded); unauthorized: a valid ads.txt that does not; nonparticipating: the site's ads.txt was not valid that night (absent, HTML, an error); not_in_snapshot: the site was not crawled (not in the list). Per ad system, the 25 with most entries.",
      sql: `SELECT ad_system_domain, count(*) AS entries,
count(*) FILTER (WHERE "authorization" = 'authorized') AS authorized,
count(*) FILTER (WHERE "authorization" = 'unauthorized') AS unauthorized,
count(*) FILTER (WHERE "authorization" = 'nonparticipating') AS nonparticipating,
count(*) FILTER (WHERE "authorization" = 'not_in_snapshot') AS not_in_snapshot,
round(count(*) FILTER (WHERE "authorization" = 'authorized') / nullif(count(*) FILTER (WHERE "authorization" <> 'not_in_snapshot'), 0), 4) AS authorized_share
FROM report_authorization WHERE named_by = 'sellers.json'
GROUP BY ad_system_domain ORDER BY entries DESC, ad_system_domain LIMIT 25`,
      chart: { kind: 'hbar', x: 'authorized_share', y: 'ad_system_domain', xTitle: 'Share of crawled sites authorizing the entry (%)', yTitle: 'Ad system', percent: true },
    },
    {
      key: 'authorization.partners',
      title: 'Inventory-partner paths by verdict (latest night)',
      about:
        "Table macro authorization_at over the latest night, the rows named by a partner's ads.txt: each record of an inventorypartnerdomain= partner's ads.txt, asked for the declaring site or app with that partner as inventorypartnerdomain (§3.5's second row). Per verdict and reason, the pairs and the sites or apps.",
      sql: `SELECT kind, "authorization", authorization_reason, count(*) AS pairs, count(DISTINCT target) AS targets
FROM report_authorization WHERE named_by = 'partner ads.txt'
GROUP BY ALL ORDER BY kind, pairs DESC, authorization_reason`,
    },
  ],
};
