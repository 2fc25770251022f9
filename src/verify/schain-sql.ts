/**
 * SupplyChain checks of the IAB guidance §4.6 ("Validation Methods") in SQL, over the judged
 * requests of request-sql.ts. Each node is looked up in its ad system's sellers.json (the seller
 * id byte for byte, else case-folded, as the vocabulary matches ids); hp=0 nodes are reported but
 * skipped by the checks (SupplyChain 1.1, "DSP schain validation logic should skip hp=0 nodes").
 *
 * Issue codes (docs/guide/verify.md):
 * - schain_malformed: a SupplyChain without a nodes array of {asi, sid, hp} objects, hp 0 or 1;
 * - no_payment_node: no hp=1 node;
 * - node_seller_not_found: an hp=1 node's sid is not in its asi's sellers.json (read whole);
 * - chain_break: the sellers.json entry of an hp=1 node after the first names (by `domain`) another
 *   company than the preceding hp=1 node's asi;
 * - first_node_not_publisher: complete=1 (or 2) and the first hp=1 node's entry is not PUBLISHER/BOTH;
 * - first_node_not_direct: the first hp=1 node is not a DIRECT record of the file that decided
 *   (the site's or app's, or the inventory partner's);
 * - sellers_json_missing: an hp=1 node's ad system has no readable sellers.json that night, so
 *   the chain cannot be checked (schain_valid is then NULL unless another issue makes it false).
 */

/** Codes that make schain_valid false. */
export const SCHAIN_INVALID_CODES = ['schain_malformed', 'no_payment_node', 'node_seller_not_found', 'chain_break', 'first_node_not_publisher', 'first_node_not_direct'] as const;

/** Every request row once per node (once with idx NULL when it has none), each node with its sellers.json entry. */
export function nodesCte(): string {
  return `expanded AS (
  SELECT j AS r, j.line_no, unnest(CASE WHEN len(j.nodes) > 0 THEN range(1, len(j.nodes) + 1) ELSE [NULL] END) AS idx
  FROM judged j
), node_keys AS (
  SELECT r, line_no, idx, adsnap_host(r.nodes[idx].asi) AS asi, r.nodes[idx].sid AS sid, r.nodes[idx].hp AS hp FROM expanded
), noded AS (
  SELECT k.r, k.line_no, k.idx, k.asi, k.sid, k.hp,
         CASE WHEN rd.ad_system_domain IS NOT NULL THEN coalesce(se.seller_id, sk.seller_id) IS NOT NULL END AS found,
         coalesce(se.seller_type, sk.seller_type) AS seller_type, coalesce(se.name, sk.name) AS name,
         coalesce(se.domain, sk.domain) AS domain, coalesce(se.domain_host, sk.domain_host) AS domain_host,
         coalesce(se.is_passthrough, sk.is_passthrough) AS is_passthrough
  FROM node_keys k
  LEFT JOIN auth_readable rd ON rd.ad_system_domain = k.asi
  LEFT JOIN auth_sellers se ON se.ad_system_domain = k.asi AND se.seller_id = k.sid
  LEFT JOIN auth_sellers_folded sk ON se.seller_id IS NULL AND sk.ad_system_domain = k.asi AND sk.seller_key = adsnap_seller_key(k.sid)
), grouped AS (
  SELECT line_no, any_value(r) AS r,
         list({'asi': asi, 'sid': sid, 'hp': hp, 'found': found, 'seller_type': seller_type, 'name': name, 'domain': domain,
               'is_passthrough': is_passthrough, 'domain_host': domain_host} ORDER BY idx) FILTER (WHERE idx IS NOT NULL) AS ns
  FROM noded GROUP BY line_no
), chained AS (
  SELECT g.*, list_filter(coalesce(g.ns, []), n -> n.hp = 1) AS hp1,
         g.r.reason IN ('partner_seller_listed', 'partner_seller_not_listed') AS via_partner
  FROM grouped g
), checked AS (
  SELECT c.*, fd.relationship AS first_rel,
         CASE WHEN c.via_partner THEN c.r.partner_valid ELSE c.r.file_valid END AS check_valid
  FROM chained c
  LEFT JOIN auth_folded fd ON len(c.hp1) > 0
        AND fd.subject = CASE WHEN c.via_partner THEN c.r.partner ELSE c.r.subject END
        AND fd.file_kind = CASE WHEN c.via_partner THEN 'ads.txt' ELSE c.r.file_kind END
        AND fd.ad_system_domain = c.hp1[1].asi AND fd.seller_key = adsnap_seller_key(c.hp1[1].sid)
)`;
}

/** The issue codes of one checked row (columns of `checked`), in the order of the list above. */
export function issuesExpr(): string {
  return `CASE WHEN r.has_schain THEN list_filter([
    CASE WHEN r.nodes IS NULL OR len(r.nodes) = 0 OR len(list_filter(r.nodes, n -> n.asi IS NULL OR n.sid IS NULL OR n.hp IS NULL OR n.hp NOT IN (0, 1))) > 0 THEN 'schain_malformed' END,
    CASE WHEN len(hp1) = 0 THEN 'no_payment_node' END,
    CASE WHEN len(list_filter(hp1, n -> NOT n.found)) > 0 THEN 'node_seller_not_found' END,
    CASE WHEN len(list_filter(range(2, len(hp1) + 1), i -> hp1[i].found AND hp1[i].domain_host IS DISTINCT FROM hp1[i - 1].asi)) > 0 THEN 'chain_break' END,
    CASE WHEN r.complete IN (1, 2) AND hp1[1].found AND hp1[1].seller_type NOT IN ('PUBLISHER', 'BOTH') THEN 'first_node_not_publisher' END,
    CASE WHEN check_valid AND len(hp1) > 0 AND first_rel IS DISTINCT FROM 'DIRECT' THEN 'first_node_not_direct' END,
    CASE WHEN len(list_filter(hp1, n -> n.found IS NULL)) > 0 THEN 'sellers_json_missing' END
  ], x -> x IS NOT NULL) END`;
}
