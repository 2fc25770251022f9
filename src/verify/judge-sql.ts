/**
 * Each request of a batch judged against its file and, with inventorypartnerdomain, against the
 * partner's ads.txt (guidance §3.5), the night's records read from w.auth_recs (request-sql.ts
 * lookupStatements). Only the records a batch can match are read into the joins: those whose key
 * (RECORD_KEY) is one of the batch's, so the joins' hash tables hold one batch's worth whatever
 * the night's size (a night of millions of records ran DuckDB out of memory when they were
 * built on the whole lookup).
 */

/**
 * The key of a (file, ad system, case-folded seller id): the MD5 of the four, one 128-bit integer
 * to find a record by. The joins compare it alone: a second preimage of MD5 is out of reach, so no
 * request, however written, matches a record it does not name (a 64-bit hash() could be forced to,
 * and is not the same across DuckDB versions, where a kept lookup outlives the run that built it).
 * NULL when any of the four is (a request without a seller id looks nothing up). Hosts hold no
 * NUL byte, so the joined text is the four values unambiguously.
 */
export const RECORD_KEY = (subject: string, fileKind: string, adSystem: string, sellerKey: string): string =>
  `md5_number(${subject} || chr(0) || ${fileKind} || chr(0) || ${adSystem} || chr(0) || ${sellerKey})`;

/** Reasons judged against the partner's ads.txt: its first hp=1 node must be a DIRECT record there. */
const VIA_PARTNER = "reason IN ('partner_seller_listed', 'partner_seller_not_listed')";

/**
 * The record `alias` (a row of recs) matched byte for byte by the request's seller id: whether
 * (`hit`) and its relationship. The only id of its row, else one of its `exact` ids.
 */
function exactMatch(alias: string): string {
  const many = `list_filter(${alias}.exact, e -> e.seller_id = l.seller_id)`;
  return `CASE WHEN ${alias}.ids = 1 THEN {'hit': ${alias}.seller_id = l.seller_id, 'relationship': CASE WHEN ${alias}.seller_id = l.seller_id THEN ${alias}.id_rel END}
              WHEN ${alias}.ids > 1 THEN {'hit': len(${many}) > 0, 'relationship': ${many}[1].relationship} END`;
}

/**
 * The CTE keyed, after `located` (request-sql.ts subjectCte): the requests of a batch each with the
 * keys of the four records it can be judged by (its pair in its file and in the partner's
 * ads.txt, its first hp=1 SupplyChain node's in each), materialized once.
 */
export function keyedCte(): string {
  return `keyed AS MATERIALIZED (
  SELECT *, ${RECORD_KEY('subject', 'file_kind', 'ad_system', 'seller_key')} AS own_k,
         ${RECORD_KEY('partner', "'ads.txt'", 'ad_system', 'seller_key')} AS partner_k,
         ${RECORD_KEY('subject', 'file_kind', 'first_asi', 'first_key')} AS first_own_k,
         ${RECORD_KEY('partner', "'ads.txt'", 'first_asi', 'first_key')} AS first_partner_k
  FROM (SELECT *, adsnap_seller_key(seller_id) AS seller_key, adsnap_seller_key(first_sid) AS first_key
        FROM (SELECT *, req_host(list_filter(nodes, x -> x.hp = 1)[1].asi) AS first_asi, list_filter(nodes, x -> x.hp = 1)[1].sid AS first_sid
              FROM located))
)`;
}

/** The record keys a request can name (keyedCte's columns): its pair's and its first hp=1 node's, each in its file and in the partner's ads.txt. */
export const RECORD_KEYS = ['own_k', 'partner_k', 'first_own_k', 'first_partner_k'] as const;

/** The record keys of the requests of `keyed` (a table expression), one row each, NULLs among them. */
export function keysOf(keyed: string): string {
  return `SELECT unnest([${RECORD_KEYS.join(', ')}]) FROM ${keyed}`;
}

/**
 * The CTE recs: the records of `records` (w.auth_recs, or the run's records of a night far larger
 * than the run: run.ts) under the keys of the batch's requests (`keyed`).
 */
export function recsCte(records: string, keyed = 'keyed'): string {
  return `recs AS MATERIALIZED (
  SELECT * FROM ${records} WHERE k IN (${keysOf(keyed)})
)`;
}

/**
 * The CTEs looked → judged, from the keyed requests (`keyed`), their records (`recs`) and their
 * SupplyChains' findings (`chains`, schain-sql.ts nodesQuery): each request judged against its file and, with
 * inventorypartnerdomain, against the partner's ads.txt (guidance §3.5), in one chain of joins
 * whose every build side is a lookup. A record matched by its case-folded id carries the ids as
 * written under it: the one equal to the request's byte for byte is the exact match (its
 * relationship), else the folded row's relationship is (the vocabulary's seller-id matching).
 * `first_rel` is the relationship of the first hp=1 SupplyChain node's record in the file that
 * decided (for first_node_not_direct, schain-sql.ts).
 */
export function judgedCtes(keyed: string, recs: string, chains: string): string {
  return `looked AS (
  SELECT l.*, ff.status AS file_status, coalesce(ff.valid, false) AS file_valid,
         ${exactMatch('re')} AS own_ex, re.relationship AS own_folded,
         pd.partner IS NOT NULL AS partner_declared, pf.status AS partner_status, coalesce(pf.valid, false) AS partner_valid,
         ${exactMatch('pe')} AS partner_ex, pe.relationship AS partner_folded,
         fo.relationship AS first_own_rel, fp.relationship AS first_partner_rel,
         n.schain_nodes, n.any_hp1, n.not_found, n.missing, n.chain_break, n.first_not_publisher
  FROM ${keyed} l
  LEFT JOIN w.auth_files ff ON ff.subject = l.subject AND ff.file_kind = l.file_kind
  LEFT JOIN ${recs} re ON re.k = l.own_k
  LEFT JOIN w.auth_partners pd ON pd.subject = l.subject AND pd.file_kind = l.file_kind AND pd.partner = l.partner
  LEFT JOIN w.auth_files pf ON pf.subject = l.partner AND pf.file_kind = 'ads.txt'
  LEFT JOIN ${recs} pe ON pe.k = l.partner_k
  LEFT JOIN ${recs} fo ON fo.k = l.first_own_k
  LEFT JOIN ${recs} fp ON fp.k = l.first_partner_k
  LEFT JOIN ${chains} n ON n.nodes = CASE WHEN l.error IS NULL THEN l.nodes END
), matched AS (
  SELECT *, CASE WHEN own_ex.hit THEN own_ex.relationship ELSE own_folded END AS own_rel, own_ex.relationship IS NOT NULL AS own_exact,
         CASE WHEN partner_ex.hit THEN partner_ex.relationship ELSE partner_folded END AS partner_rel,
         partner_ex.relationship IS NOT NULL AS partner_exact
  FROM looked
), reasoned AS (
  SELECT *, adsnap_auth_reason(kind, in_snapshot, subject IS NOT NULL, file_valid, ad_system IS NOT NULL AND seller_id IS NOT NULL,
                               own_rel IS NOT NULL, partner, partner_declared, partner_valid, partner_rel IS NOT NULL) AS reason
  FROM matched
), judged AS (
  SELECT *, CASE WHEN ${VIA_PARTNER} THEN first_partner_rel ELSE first_own_rel END AS first_rel FROM reasoned
)`;
}
