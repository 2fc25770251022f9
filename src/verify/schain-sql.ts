/**
 * SupplyChain checks of the IAB guidance §4.6 ("Validation Methods") in SQL, over the keyed
 * requests of judge-sql.ts. Each node is looked up in its ad system's sellers.json (the seller
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

/**
 * The nodes put back in chain order: an ordered aggregate (list(… ORDER BY idx)) sorts every
 * group apart and cost most of the run's CPU; an unordered list of structs led by idx, sorted
 * per row (structs compare field by field, idx unique in a chain), gives the same list.
 */
const NODE_FIELDS = ['asi', 'sid', 'hp', 'found', 'seller_type', 'name', 'domain', 'is_passthrough'];
const NODE_LIST = `list_transform(list_sort(list({'idx': idx, ${NODE_FIELDS.map((f) => `'${f}': ${f}`).join(', ')}})),
         x -> {${NODE_FIELDS.map((f) => `'${f}': x.${f}`).join(', ')}})`;

/**
 * One row per distinct SupplyChain (its `nodes` as read) of the requests of the table `requests`:
 * its nodes as written, each with its sellers.json entry, and the node-level findings as flags.
 * What a chain's nodes say depends on the nodes alone, and a night's requests repeat their chains
 * (the same publisher through the same exchanges), so each distinct chain is looked up once, not
 * once per request. Each node knows the asi of the hp=1 node before it and the position of the
 * first hp=1 node, computed from the list before it is unnested, so that one GROUP BY of small
 * rows puts them back together. `first_not_publisher`: the first hp=1 node's entry is found and
 * is not a PUBLISHER or BOTH (first_node_not_publisher when the chain says it is complete).
 */
export function nodesQuery(requests: string): string {
  return `WITH distinct_chains AS (
  SELECT DISTINCT nodes FROM ${requests} WHERE error IS NULL AND len(nodes) > 0
), expanded AS (
  SELECT nodes, unnest(range(1, len(nodes) + 1)) AS idx,
         coalesce(list_position(list_transform(nodes, x -> x.hp = 1), true), 0) AS first_hp1
  FROM distinct_chains
), node_keys AS (
  SELECT nodes, idx, first_hp1, req_host(nodes[idx].asi) AS asi, nodes[idx].sid AS sid, nodes[idx].hp AS hp,
         req_host(list_filter(nodes[1:idx - 1], x -> x.hp = 1)[-1].asi) AS prev_asi
  FROM expanded
), noded AS (
  SELECT k.*,
         CASE WHEN rd.ad_system_domain IS NOT NULL THEN coalesce(se.seller_id, sk.seller_id) IS NOT NULL END AS found,
         coalesce(se.seller_type, sk.seller_type) AS seller_type, coalesce(se.name, sk.name) AS name,
         coalesce(se.domain, sk.domain) AS domain, coalesce(se.domain_host, sk.domain_host) AS domain_host,
         coalesce(se.is_passthrough, sk.is_passthrough) AS is_passthrough
  FROM node_keys k
  LEFT JOIN w.auth_readable rd ON rd.ad_system_domain = k.asi
  LEFT JOIN w.auth_sellers se ON se.ad_system_domain = k.asi AND se.seller_id = k.sid
  LEFT JOIN w.auth_sellers_folded sk ON sk.ad_system_domain = k.asi AND sk.seller_key = CASE WHEN se.seller_id IS NULL THEN adsnap_seller_key(k.sid) END
)
SELECT nodes,
       ${NODE_LIST} AS schain_nodes,
       bool_or(hp = 1) AS any_hp1,
       bool_or(hp = 1 AND NOT found) AS not_found,
       bool_or(hp = 1 AND found IS NULL) AS missing,
       bool_or(hp = 1 AND idx > first_hp1 AND found AND domain_host IS DISTINCT FROM prev_asi) AS chain_break,
       bool_or(idx = first_hp1 AND found AND seller_type NOT IN ('PUBLISHER', 'BOTH')) AS first_not_publisher
FROM noded GROUP BY nodes`;
}

/** The issue codes of a request (columns of judged: its chain's findings from nodesQuery, and first_rel, the first hp=1 node's record), in the order above. */
export function issuesExpr(): string {
  return `CASE WHEN has_schain THEN list_filter([
    CASE WHEN nodes IS NULL OR len(nodes) = 0 OR len(list_filter(nodes, x -> x.asi IS NULL OR x.sid IS NULL OR x.hp IS NULL OR x.hp NOT IN (0, 1))) > 0 THEN 'schain_malformed' END,
    CASE WHEN NOT coalesce(any_hp1, false) THEN 'no_payment_node' END,
    CASE WHEN not_found THEN 'node_seller_not_found' END,
    CASE WHEN chain_break THEN 'chain_break' END,
    CASE WHEN complete IN (1, 2) AND first_not_publisher THEN 'first_node_not_publisher' END,
    CASE WHEN any_hp1 AND CASE WHEN reason IN ('partner_seller_listed', 'partner_seller_not_listed') THEN partner_valid ELSE file_valid END
              AND first_rel IS DISTINCT FROM 'DIRECT' THEN 'first_node_not_direct' END,
    CASE WHEN missing THEN 'sellers_json_missing' END
  ], x -> x IS NOT NULL) END`;
}
