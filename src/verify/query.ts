/**
 * The whole `adsnap verify` query, one batch of lines at a time: requests and their files
 * (request-sql.ts) → keyed, with their records (judge-sql.ts) → each distinct SupplyChain's
 * findings (schain-sql.ts) → judged (judge-sql.ts) → one output row per input line, in input
 * order. Columns: docs/guide/verify.md.
 */
import { requestsCte, subjectCte } from './request-sql.js';
import { judgedCtes, keyedCte, recsCte } from './judge-sql.js';
import { SCHAIN_INVALID_CODES, issuesExpr, nodesQuery } from './schain-sql.js';

/** Reasons whose deciding file is the inventory partner's ads.txt (§3.5, second row). */
const PARTNER_DECIDED = "('partner_no_valid_file', 'partner_seller_listed', 'partner_seller_not_listed')";

/** What a row says, NULL for a line with an `error`. */
function verdictColumns(): string {
  const ok = (expr: string) => `CASE WHEN j.error IS NULL THEN ${expr} END`;
  return [
    `${ok('adsnap_auth_verdict(j.reason, j.partner IS NOT NULL)')} AS authorization`,
    `${ok('j.reason')} AS authorization_reason`,
    `${ok(`CASE WHEN j.reason IN ${PARTNER_DECIDED} THEN 'partner ads.txt' WHEN j.subject IS NOT NULL THEN j.file_kind END`)} AS decided_by`,
    `${ok(`CASE WHEN j.reason IN ${PARTNER_DECIDED} THEN j.partner ELSE j.subject END`)} AS decided_by_host`,
    `${ok(`CASE WHEN j.reason IN ${PARTNER_DECIDED} THEN j.partner_status ELSE j.file_status END`)} AS file_status`,
    `${ok(`CASE j.reason WHEN 'seller_listed' THEN j.own_rel WHEN 'partner_seller_listed' THEN j.partner_rel END`)} AS relationship`,
    `${ok(`CASE j.reason WHEN 'seller_listed' THEN CASE WHEN j.own_exact THEN 'exact' ELSE 'case_folded' END
                      WHEN 'partner_seller_listed' THEN CASE WHEN j.partner_exact THEN 'exact' ELSE 'case_folded' END END`)} AS seller_match`,
  ].join(',\n       ');
}

function schainColumns(): string {
  const invalid = `[${SCHAIN_INVALID_CODES.map((c) => `'${c}'`).join(', ')}]`;
  return `CASE WHEN j.error IS NULL AND j.has_schain THEN j.complete END AS schain_complete,
       CASE WHEN j.error IS NOT NULL OR NOT j.has_schain THEN NULL
            WHEN len(list_intersect(j.issues, ${invalid})) > 0 THEN false
            WHEN list_contains(j.issues, 'sellers_json_missing') THEN NULL ELSE true END AS schain_valid,
       CASE WHEN j.error IS NULL THEN j.issues END AS schain_issues,
       CASE WHEN j.error IS NULL THEN j.schain_nodes END AS schain_nodes`;
}

/**
 * Lines `first`…`last` of l.lines, judged, as the rows `adsnap verify` writes: one statement, no
 * intermediate table (the keyed requests and their records are materialized CTEs, each read more
 * than once), the records read from `records`.
 */
export function batchQuery(first: number, last: number, records = 'w.auth_recs'): string {
  return `WITH ${requestsCte(first, last)},
${subjectCte()},
${keyedCte()},
${recsCte(records)},
chains AS (${nodesQuery('keyed')}),
${judgedCtes('keyed', 'recs', 'chains')},
${outputCtes('judged')}`;
}

/** Lines `first`…`last` of l.lines, read, located and keyed: the first half of batchQuery (the run's records, run.ts). */
export function keyedQuery(first: number, last: number): string {
  return `WITH ${requestsCte(first, last)},
${subjectCte()},
${keyedCte()}
SELECT * FROM keyed`;
}

/** The keyed requests of `keyed` (a table expression: keyedQuery's rows) judged against `records`: the second half of batchQuery. */
export function judgeKeyedQuery(keyed: string, records: string): string {
  return `WITH keyed AS MATERIALIZED (SELECT * FROM ${keyed}),
${recsCte(records)},
chains AS (${nodesQuery('keyed')}),
${judgedCtes('keyed', 'recs', 'chains')},
${outputCtes('judged')}`;
}

/**
 * The rows `adsnap verify` writes, from the judged requests (`judged`, with their SupplyChains'
 * findings), in input order: the last CTE and the SELECT of batchQuery.
 */
function outputCtes(judged: string): string {
  return `final AS (
  SELECT *, ${issuesExpr()} AS issues FROM ${judged}
)
SELECT line_no, j.id AS id, j.error AS error,
       CASE WHEN j.error IS NULL THEN j.kind END AS kind,
       CASE WHEN j.error IS NULL AND j.kind = 'site' THEN j.host END AS site_domain,
       CASE WHEN j.error IS NULL AND j.kind = 'app' THEN j.storeurl END AS app_storeurl,
       CASE WHEN j.error IS NULL AND j.kind = 'app' THEN j.bundle END AS app_bundle,
       CASE WHEN j.error IS NULL THEN j.partner END AS inventorypartnerdomain,
       CASE WHEN j.error IS NULL THEN j.ad_system END AS ad_system,
       CASE WHEN j.error IS NULL THEN j.seller_id END AS seller_id,
       ${verdictColumns()},
       ${schainColumns()}
FROM final j
ORDER BY line_no`;
}
