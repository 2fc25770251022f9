/**
 * The report's section '11. Authorization': the verdict of the IAB Tech Lab Supply Chain
 * Validation guidance §3.5 for what the night's files name, counted by the table macro
 * authorization_counts_at (sql/views.sql: authorization_at's rows, derived per night; the same
 * verdict `adsnap verify` gives a bid request).
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
        "Table macro authorization_counts_at over the latest night (authorization_at's rows counted), the rows named by a sellers.json: each PUBLISHER or BOTH entry of an ad system's readable sellers.json, asked as a request of the site its `domain` names with that ad system and seller id. authorized: the site's ads.txt lists the pair (exactly or case-folded); unauthorized: a valid ads.txt that does not; nonparticipating: the site's ads.txt was not valid that night (absent, HTML, an error); not_in_snapshot: the site was not crawled (not in the list). Per ad system, the 25 with most entries.",
      sql: `WITH v AS (
  SELECT ad_system_domain, sum(pairs)::BIGINT AS entries,
  coalesce(sum(pairs) FILTER (WHERE "authorization" = 'authorized'), 0)::BIGINT AS authorized,
  coalesce(sum(pairs) FILTER (WHERE "authorization" = 'unauthorized'), 0)::BIGINT AS unauthorized,
  coalesce(sum(pairs) FILTER (WHERE "authorization" = 'nonparticipating'), 0)::BIGINT AS nonparticipating,
  coalesce(sum(pairs) FILTER (WHERE "authorization" = 'not_in_snapshot'), 0)::BIGINT AS not_in_snapshot
  FROM report_authorization WHERE named_by = 'sellers.json' AND NOT all_ad_systems GROUP BY ad_system_domain
)
SELECT *, round(authorized / nullif(entries - not_in_snapshot, 0), 4) AS authorized_share
FROM v ORDER BY entries DESC, ad_system_domain LIMIT 25`,
      chart: { kind: 'hbar', x: 'authorized_share', y: 'ad_system_domain', xTitle: 'Share of crawled sites authorizing the entry (%)', yTitle: 'Ad system', percent: true },
    },
    {
      key: 'authorization.partners',
      title: 'Inventory-partner paths by verdict (latest night)',
      about:
        "Table macro authorization_counts_at over the latest night (authorization_at's rows counted), the rows named by a partner's ads.txt: each record of an inventorypartnerdomain= partner's ads.txt, asked for the declaring site or app with that partner as inventorypartnerdomain (§3.5's second row). Per verdict and reason, the pairs and the sites or apps.",
      sql: `SELECT kind, "authorization", authorization_reason, pairs, targets
FROM report_authorization WHERE named_by = 'partner ads.txt' AND all_ad_systems
ORDER BY kind, pairs DESC, authorization_reason`,
    },
  ],
};
