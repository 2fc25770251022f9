/**
 * The whole `adsnap verify` query: requests (request-sql.ts) → SupplyChain nodes (schain-sql.ts)
 * → one output row per input line, in input order. Columns: docs/guide/verify.md.
 */
import { judgedCte, requestsCte, subjectCte } from './request-sql.js';
import { SCHAIN_INVALID_CODES, issuesExpr, nodesCte } from './schain-sql.js';

/** Reasons whose deciding file is the inventory partner's ads.txt (§3.5, second row). */
const PARTNER_DECIDED = "('partner_no_valid_file', 'partner_seller_listed', 'partner_seller_not_listed')";

/** What a row says, NULL for a line with an `error`. */
function verdictColumns(): string {
  const ok = (expr: string) => `CASE WHEN r.error IS NULL THEN ${expr} END`;
  return [
    `${ok('adsnap_auth_verdict(r.reason, r.partner IS NOT NULL)')} AS authorization`,
    `${ok('r.reason')} AS authorization_reason`,
    `${ok(`CASE WHEN r.reason IN ${PARTNER_DECIDED} THEN 'partner ads.txt' WHEN r.subject IS NOT NULL THEN r.file_kind END`)} AS decided_by`,
    `${ok(`CASE WHEN r.reason IN ${PARTNER_DECIDED} THEN r.partner ELSE r.subject END`)} AS decided_by_host`,
    `${ok(`CASE WHEN r.reason IN ${PARTNER_DECIDED} THEN r.partner_status ELSE r.file_status END`)} AS file_status`,
    `${ok(`CASE r.reason WHEN 'seller_listed' THEN r.own_rel WHEN 'partner_seller_listed' THEN r.partner_rel END`)} AS relationship`,
    `${ok(`CASE r.reason WHEN 'seller_listed' THEN CASE WHEN r.own_exact THEN 'exact' ELSE 'case_folded' END
                      WHEN 'partner_seller_listed' THEN CASE WHEN r.partner_exact THEN 'exact' ELSE 'case_folded' END END`)} AS seller_match`,
  ].join(',\n       ');
}

function schainColumns(): string {
  const invalid = `[${SCHAIN_INVALID_CODES.map((c) => `'${c}'`).join(', ')}]`;
  return `CASE WHEN r.error IS NULL AND r.has_schain THEN r.complete END AS schain_complete,
       CASE WHEN r.error IS NOT NULL OR NOT r.has_schain THEN NULL
            WHEN len(list_intersect(issues, ${invalid})) > 0 THEN false
            WHEN list_contains(issues, 'sellers_json_missing') THEN NULL ELSE true END AS schain_valid,
       CASE WHEN r.error IS NULL THEN issues END AS schain_issues,
       CASE WHEN r.error IS NULL THEN list_transform(ns, n -> struct_pack(asi := n.asi, sid := n.sid, hp := n.hp, found := n.found,
         seller_type := n.seller_type, name := n.name, domain := n.domain, is_passthrough := n.is_passthrough)) END AS schain_nodes`;
}

/** The SELECT whose rows `adsnap verify` writes, reading JSON Lines from `source` (a path, or /dev/stdin). */
export function verifyQuery(source: string): string {
  return `WITH ${requestsCte(source)},
${subjectCte()},
${judgedCte()},
${nodesCte()},
final AS (SELECT *, ${issuesExpr()} AS issues FROM checked)
SELECT line_no, r.id AS id, r.error AS error,
       CASE WHEN r.error IS NULL THEN r.kind END AS kind,
       CASE WHEN r.error IS NULL AND r.kind = 'site' THEN r.host END AS site_domain,
       CASE WHEN r.error IS NULL AND r.kind = 'app' THEN r.storeurl END AS app_storeurl,
       CASE WHEN r.error IS NULL AND r.kind = 'app' THEN r.bundle END AS app_bundle,
       CASE WHEN r.error IS NULL THEN r.partner END AS inventorypartnerdomain,
       CASE WHEN r.error IS NULL THEN r.ad_system END AS ad_system,
       CASE WHEN r.error IS NULL THEN r.seller_id END AS seller_id,
       ${verdictColumns()},
       ${schainColumns()}
FROM final
ORDER BY line_no`;
}
