/**
 * Each request of a batch judged against its file and, with inventorypartnerdomain, against the
 * partner's ads.txt (guidance §3.5), the night's records read from w.auth_recs (request-sql.ts
 * lookupStatements). Only the records a batch can match are read into the joins: those whose key
 * (RECORD_KEY) is one of the batch's, so the joins' hash tables hold one batch's worth whatever
 * the night's size (a night of millions of records ran DuckDB out of memory when they were
 * built on the whole lookup).
 */

/**
 * The 64-bit key of a (file, ad system, case-folded seller id): one integer to find a record by.
 * The joins compare the four values as well, so a hash collision cannot make a false match.
 */
export const RECORD_KEY = (subject: string, fileKind: string, adSystem: string, sellerKey: string): string =>
  `hash(CAST(${subject} AS VARCHAR), CAST(${fileKind} AS VARCHAR), CAST(${adSystem} AS VARCHAR), CAST(${sellerKey} AS VARCHAR))`;

/** Reasons judged against the partner's ads.txt: its first hp=1 node must be a DIRECT record there. */
const VIA_PARTNER = "j.reason IN ('partner_seller_listed', 'partner_seller_not_listed')";

/** A join of `alias` (a row of recs) on the record of (subject, file kind, ad system, seller key) whose key is `k`. */
function recordOn(alias: string, k: string, subject: string, fileKind: string, adSystem: string, sellerKey: string): string {
  return `${alias}.k = ${k} AND ${alias}.subject = ${subject} AND ${alias}.file_kind = ${fileKind}
        AND ${alias}.ad_system_domain = ${adSystem} AND ${alias}.seller_key = ${sellerKey}`;
}

/**
 * The record `alias` (a row of recs) matched byte for byte by the request's seller id: whether
 * (`hit`) and its relationship. The only id of its row, else one of the ids of auth_recs_many.
 */
function exactMatch(alias: string): string {
  const many = `list_filter(${alias}.exact, e -> e.seller_id = l.seller_id)`;
  return `CASE WHEN ${alias}.ids = 1 THEN {'hit': ${alias}.seller_id = l.seller_id, 'relationship': CASE WHEN ${alias}.seller_id = l.seller_id THEN ${alias}.id_rel END}
              WHEN ${alias}.ids > 1 THEN {'hit': len(${many}) > 0, 'relationship': ${many}[1].relationship} END`;
}

/**
 * The CTEs keyed → recs → judged, after `located` (request-sql.ts subjectCte). A record matched by
 * its case-folded id carries the ids as written under it: the one equal to the request's byte for
 * byte is the exact match (its relationship), else the folded row's relationship is (the
 * vocabulary's seller-id matching). `first_rel` is the relationship of the first hp=1
 * SupplyChain node's record in the file that decided (for first_node_not_direct, schain-sql.ts).
 */
export function judgedCte(): string {
  return `keyed AS MATERIALIZED (
  SELECT *, ${RECORD_KEY('subject', 'file_kind', 'ad_system', 'seller_key')} AS own_k,
         ${RECORD_KEY('partner', "'ads.txt'", 'ad_system', 'seller_key')} AS partner_k,
         ${RECORD_KEY('subject', 'file_kind', 'first_asi', 'first_key')} AS first_own_k,
         ${RECORD_KEY('partner', "'ads.txt'", 'first_asi', 'first_key')} AS first_partner_k
  FROM (SELECT *, adsnap_seller_key(seller_id) AS seller_key, adsnap_seller_key(first_sid) AS first_key
        FROM (SELECT *, req_host(list_filter(nodes, x -> x.hp = 1)[1].asi) AS first_asi, list_filter(nodes, x -> x.hp = 1)[1].sid AS first_sid
              FROM located))
), recs AS MATERIALIZED (
  SELECT r.*, m.exact FROM w.auth_recs r
  LEFT JOIN (SELECT k, list({'seller_id': seller_id, 'relationship': relationship}) AS exact FROM w.auth_recs_many GROUP BY k) m
    ON m.k = CASE WHEN r.ids > 1 THEN r.k END
  WHERE r.k IN (SELECT unnest([own_k, partner_k, first_own_k, first_partner_k]) FROM keyed)
), looked AS (
  SELECT l.*, ff.status AS file_status, coalesce(ff.valid, false) AS file_valid,
         ${exactMatch('re')} AS own_ex, re.relationship AS own_folded,
         pd.partner IS NOT NULL AS partner_declared, pf.status AS partner_status, coalesce(pf.valid, false) AS partner_valid,
         ${exactMatch('pe')} AS partner_ex, pe.relationship AS partner_folded
  FROM keyed l
  LEFT JOIN w.auth_files ff ON ff.subject = l.subject AND ff.file_kind = l.file_kind
  LEFT JOIN recs re ON ${recordOn('re', 'l.own_k', 'l.subject', 'l.file_kind', 'l.ad_system', 'l.seller_key')}
  LEFT JOIN w.auth_partners pd ON pd.subject = l.subject AND pd.file_kind = l.file_kind AND pd.partner = l.partner
  LEFT JOIN w.auth_files pf ON pf.subject = l.partner AND pf.file_kind = 'ads.txt'
  LEFT JOIN recs pe ON ${recordOn('pe', 'l.partner_k', 'l.partner', "'ads.txt'", 'l.ad_system', 'l.seller_key')}
), matched AS (
  SELECT *, CASE WHEN own_ex.hit THEN own_ex.relationship ELSE own_folded END AS own_rel, own_ex.relationship IS NOT NULL AS own_exact,
         CASE WHEN partner_ex.hit THEN partner_ex.relationship ELSE partner_folded END AS partner_rel,
         partner_ex.relationship IS NOT NULL AS partner_exact
  FROM looked
), reasoned AS (
  SELECT *, adsnap_auth_reason(kind, in_snapshot, subject IS NOT NULL, file_valid, ad_system IS NOT NULL AND seller_id IS NOT NULL,
                               own_rel IS NOT NULL, partner, partner_declared, partner_valid, partner_rel IS NOT NULL) AS reason
  FROM matched
), judged AS MATERIALIZED (
  SELECT j.*, fd.relationship AS first_rel
  FROM reasoned j
  LEFT JOIN recs fd ON ${recordOn('fd', `CASE WHEN ${VIA_PARTNER} THEN j.first_partner_k ELSE j.first_own_k END`,
    `CASE WHEN ${VIA_PARTNER} THEN j.partner ELSE j.subject END`, `CASE WHEN ${VIA_PARTNER} THEN 'ads.txt' ELSE j.file_kind END`, 'j.first_asi', 'j.first_key')}
)`;
}
