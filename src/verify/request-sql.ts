/**
 * The SQL of `adsnap verify`: bid requests (OpenRTB 2.x JSON Lines) read, judged and written by
 * DuckDB against one night's lookups (the adsnap_auth_* macros of sql/views.sql, materialized as
 * tables of a database `w` by lookupStatements); judge-sql.ts looks the requests up in them. Nothing here runs per line in JavaScript.
 *
 * Reading (linesQuery): each physical line is one VARCHAR (a CSV reader with a delimiter no valid
 * JSON text holds, no quoting; a blank line is a NULL row), stored in input order into a table
 * whose rowid is then the line number: row_number() OVER () would hold every line in memory.
 */
import { inRangeSql, type KeyRange } from '../util/key-ranges.js';
import { sqlString } from '../util/sql-literal.js';
import { RECORD_KEY } from './judge-sql.js';

/**
 * The night's lookups as tables of a database file `w` (lookups.ts builds it, kept with the night
 * or for one run, and attaches it; every request probes them): on disk, DuckDB evicts them under
 * its memory cap, so a night of millions of records fits; as in-memory temp tables it ran out of
 * 512 MB (docs/performance.md#verify).
 */
export function lookupStatements(night: string, ranges: readonly KeyRange[] = [[null, null]]): string[] {
  const n = sqlString(night);
  const grouped = (range: KeyRange) => `SELECT ${RECORD_KEY('subject', 'file_kind', 'ad_system_domain', 'seller_key')} AS k, subject, file_kind, ad_system_domain, seller_key,
       adsnap_pair_relationship(relationship) AS relationship,
       CASE WHEN min(seller_id) IS NOT DISTINCT FROM max(seller_id) AND count(seller_id) IN (0, count(*)) THEN 1 ELSE 2 END AS ids,
       CASE WHEN min(seller_id) = max(seller_id) AND count(seller_id) = count(*) THEN min(seller_id) END AS seller_id,
       CASE WHEN min(seller_id) IS NOT DISTINCT FROM max(seller_id) AND count(seller_id) IN (0, count(*))
            THEN adsnap_pair_relationship(relationship) END AS id_rel
     FROM (SELECT subject, file_kind, ad_system_domain, seller_account_id AS seller_id, adsnap_seller_key(seller_account_id) AS seller_key, relationship
           FROM ads_records WHERE snapshot_date = CAST(${n} AS DATE) AND ${inRangeSql('subject', range, sqlString)})
     GROUP BY subject, file_kind, ad_system_domain, seller_key`;
  return [
    `CREATE TABLE w.auth_files AS SELECT * FROM adsnap_auth_files(${n})`,
    // The night's records by (file, ad system, case-folded seller id), one row each (the folded
    // match; judge-sql.ts), found by their RECORD_KEY alone, grouped once per range of subjects
    // (lookups.ts: a 1M-site night's 71 M records at once ran out of 1 GB): the relationship (DIRECT wins), and the id as written beside it when it is the only one (the
    // exact match; `ids` 1); else (`ids` 2: two ids or more) the ids, each with its relationship
    // (adsnap_auth_records' rows), in `exact`. Aggregates of fixed size over the night: a list()
    // per group of millions ran out of DuckDB's memory, so the lists are made for those keys only.
    `CREATE OR REPLACE TEMP TABLE verify_recs_grouped AS ${grouped(ranges[0]!)}`,
    ...ranges.slice(1).map((r) => `INSERT INTO verify_recs_grouped ${grouped(r)}`),
    `CREATE TABLE w.auth_recs AS SELECT k, relationship, ids, seller_id, id_rel, CAST(NULL AS STRUCT(seller_id VARCHAR, relationship VARCHAR)[]) AS exact
     FROM verify_recs_grouped WHERE k IS NOT NULL`,
    `UPDATE w.auth_recs SET exact = many.exact FROM (
       SELECT m.k, list({'seller_id': a.seller_id, 'relationship': a.relationship}) AS exact
       FROM (SELECT * FROM adsnap_auth_records(${n}) WHERE subject IN (SELECT subject FROM verify_recs_grouped WHERE ids > 1)) a
       JOIN (SELECT * FROM verify_recs_grouped WHERE ids > 1) m ON ${['subject', 'file_kind', 'ad_system_domain'].map((c) => `a.${c} = m.${c}`).join(' AND ')} AND a.seller_key = m.seller_key
       GROUP BY m.k
     ) many WHERE w.auth_recs.k = many.k`,
    'DROP TABLE IF EXISTS verify_recs_grouped',
    `CREATE TABLE w.auth_partners AS SELECT * FROM adsnap_auth_partners(${n})`,
    `CREATE TABLE w.auth_sellers AS SELECT * FROM adsnap_auth_sellers(${n})`,
    `CREATE TABLE w.auth_sellers_folded AS SELECT * FROM w.auth_sellers
       QUALIFY row_number() OVER (PARTITION BY ad_system_domain, seller_key ORDER BY seller_type NULLS LAST, seller_id) = 1`,
    `CREATE TABLE w.auth_readable AS SELECT DISTINCT subject AS ad_system_domain FROM files
       WHERE snapshot_date = CAST(${n} AS DATE) AND file_kind = 'sellers.json' AND adsnap_readable_sellers(status)`,
    // An app by store URL as the list gave it, and by bundle / store id (the app with a developer host first).
    `CREATE TABLE w.auth_app_urls AS SELECT * FROM adsnap_auth_apps(${n})`,
    `CREATE TABLE w.auth_app_ids AS SELECT id, arg_min(subject, subject IS NULL) AS subject FROM (
       SELECT bundle_id AS id, subject FROM apps WHERE snapshot_date = CAST(${n} AS DATE) AND bundle_id IS NOT NULL
       UNION ALL SELECT store_id, subject FROM apps WHERE snapshot_date = CAST(${n} AS DATE) AND store_id IS NOT NULL) GROUP BY id`,
    `CREATE TABLE w.auth_sites AS SELECT subject FROM w.auth_files WHERE file_kind = 'ads.txt'`,
  ];
}

/**
 * A request's domain as adsnap_host reads it, its regular expressions only for a value that is
 * not a plain lower-case host already (the common case costs a lower() and an rtrim()). A macro
 * of the session, not of `w`: a kept lookup (lookups.ts) is attached read-only.
 */
export const REQ_HOST_MACRO = `CREATE OR REPLACE TEMP MACRO req_host(s) AS CASE WHEN s IS NULL THEN NULL
       WHEN strpos(s, '/') = 0 AND strpos(s, ':') = 0 AND strpos(s, ' ') = 0 AND strpos(s, '?') = 0 AND strpos(s, '#') = 0 AND strpos(s, chr(9)) = 0
       THEN nullif(rtrim(lower(s), '.'), '') ELSE adsnap_host(s) END`;

/** The lines of `source` (a path), one VARCHAR each, in input order: CREATE TABLE … AS this. */
export function linesQuery(source: string): string {
  return `SELECT line FROM read_csv(${sqlString(source)}, columns = {'line': 'VARCHAR'}, delim = '\x01', quote = '', escape = '',
    header = false, auto_detect = false, strict_mode = false, null_padding = true)`;
}

/** The type a SupplyChain's nodes are read as; a node that does not fit makes the chain malformed. */
const NODES = 'STRUCT(asi VARCHAR, sid VARCHAR, hp INTEGER)[]';

/**
 * The parts of a request read from the whole line, in one json_extract (one parse of the line):
 * id, site, app, ad_system, and the SupplyChain where OpenRTB 2.6, 2.5 and 2.4 put it. The
 * fields below are then read from these small fragments (OpenRTB 2.6 §3.2.13 Site, §3.2.14 App).
 */
const PARTS = ['$.id', '$.site', '$.app', '$.ad_system', '$.source.schain', '$.source.ext.schain', '$.ext.schain'];
const OWN_FIELDS = ['$.domain', '$.publisher.id', '$.inventorypartnerdomain'];
const APP_FIELDS = ['$.bundle', '$.storeurl', '$.publisher.id', '$.inventorypartnerdomain'];

/**
 * Lines `first`…`last` of the table l.lines (linesQuery, run.ts; the rowid filter reads only their row
 * groups) → one row per line: its number, the request's fields, or an `error` code. The
 * SupplyChain is read where OpenRTB 2.6, 2.5 and 2.4 put it (guidance, "Placement in the Bid
 * Request"). The ad system is `ad_system`, else the last node's asi; the seller id
 * publisher.id, else the last node's sid.
 */
function requestsCte(first: number, last: number): string {
  return `raw AS (
  SELECT rowid + 1 AS line_no, line AS text FROM l.lines WHERE rowid BETWEEN ${first - 1} AND ${last - 1}
), checked_lines AS (
  -- A valid JSON text that starts with '{' is an object: json_type (a second parse) only for the rest.
  SELECT line_no, text,
         CASE WHEN text IS NULL THEN 'empty_line'
              WHEN json_valid(text) THEN CASE WHEN prefix(text, '{') THEN NULL WHEN json_type(text) = 'OBJECT' THEN NULL ELSE 'not_an_object' END
              WHEN trim(text) = '' THEN 'empty_line' ELSE 'not_json' END AS pre_error
  FROM raw
), parts AS (
  SELECT line_no, pre_error, CASE WHEN pre_error IS NULL THEN json_extract(text, ${listOf(PARTS)}) END AS p
  FROM checked_lines
), parsed AS (
  -- Each JSON function once per row: a lateral alias would be expanded at every use. The
  -- fragments are compact JSON as DuckDB writes it, so an object starts with '{', null is
  -- 'null', and a string without a backslash is its text between the quotes.
  SELECT line_no, pre_error, ${jsonString('p[1]')} AS id, ${jsonString('p[4]')} AS ad_system_field,
         json_extract_string(p[2], ${listOf(OWN_FIELDS)}) AS s, json_extract_string(p[3], ${listOf(APP_FIELDS)}) AS a,
         prefix(p[2], '{') AS is_site, prefix(p[3], '{') AS is_app, coalesce(p[5], p[6], p[7]) AS schain
  FROM parts
), fields AS (
  SELECT line_no, pre_error, id, ad_system_field, s, a, coalesce(is_site, false) AS is_site, coalesce(is_app, false) AS is_app,
         schain IS NOT NULL AND schain <> 'null' AS has_schain, json_extract(schain, ['$.complete', '$.nodes']) AS cn
  FROM parsed
), typed AS (
  SELECT * EXCLUDE (cn), TRY_CAST(cn[1] AS INTEGER) AS complete, TRY_CAST(cn[2] AS ${NODES}) AS nodes FROM fields
), req AS (
  SELECT line_no, id,
         CASE WHEN pre_error IS NOT NULL THEN pre_error
              WHEN is_site AND is_app THEN 'site_and_app'
              WHEN NOT is_site AND NOT is_app THEN 'no_site_or_app'
              WHEN is_site AND nullif(trim(s[1]), '') IS NULL THEN 'no_site_domain'
              WHEN is_app AND nullif(trim(a[1]), '') IS NULL AND nullif(trim(a[2]), '') IS NULL THEN 'no_app_id' END AS error,
         CASE WHEN is_site THEN 'site' WHEN is_app THEN 'app' END AS kind,
         req_host(s[1]) AS host, nullif(trim(a[2]), '') AS storeurl, nullif(trim(a[1]), '') AS bundle,
         req_host(CASE WHEN is_site THEN s[3] ELSE a[4] END) AS partner,
         has_schain, complete, nodes,
         req_host(coalesce(ad_system_field, nodes[-1].asi)) AS ad_system,
         coalesce(nullif(CASE WHEN is_site THEN s[2] ELSE a[3] END, ''), nodes[-1].sid) AS seller_id
  FROM typed
)`;
}

/** A JSON fragment's string value (json_extract_string's), without a parse when it is a plain string. */
function jsonString(fragment: string): string {
  return `CASE WHEN prefix(${fragment}, '"') AND NOT contains(${fragment}, '\\') THEN ${fragment}[2:-2] ELSE json_extract_string(${fragment}, '$') END`;
}

function listOf(items: readonly string[]): string {
  return `[${items.map(sqlString).join(', ')}]`;
}

/** The parent of a host ('www.a.com' → 'a.com'), NULL for a single label. */
function parent(expr: string): string {
  return `CASE WHEN contains(${expr}, '.') THEN substr(${expr}, strpos(${expr}, '.') + 1) END`;
}

/**
 * Each request's applicable file. A site reads the file of its own host when the night holds one
 * (a listed site, a subdomain its root declared with subdomain=, ads.txt 1.1 §3.1), else that of
 * the nearest parent that has one (www.example.com and other hosts read example.com's): up to
 * three labels up. An app reads the app-ads.txt of the developer host the crawl used for its store
 * URL, else for its bundle / store id (app-ads.txt 1.0; the night's apps rows).
 */
function subjectCte(): string {
  // Join keys are NULL where a join does not apply: a condition on one side only would make
  // DuckDB fall back from a hash join to a nested-loop join. A site's host and its parents are
  // computed once, each from the one before (an expression per use nested them again at each level).
  return `hosts AS (
  SELECT *, ${parent('h0')} AS h1 FROM (SELECT *, CASE WHEN kind = 'site' THEN host END AS h0 FROM req)
), hosts2 AS (
  SELECT *, ${parent('h2p')} AS h3 FROM (SELECT *, ${parent('h1')} AS h2p FROM hosts)
), located AS (
  SELECT r.* EXCLUDE (h0, h1, h2p, h3),
         CASE WHEN r.kind = 'site' THEN coalesce(s0.subject, s1.subject, s2.subject, s3.subject) ELSE coalesce(au.subject, ai.subject) END AS subject,
         CASE WHEN r.kind = 'site' THEN coalesce(s0.subject, s1.subject, s2.subject, s3.subject) IS NOT NULL
              ELSE au.store_url IS NOT NULL OR ai.id IS NOT NULL END AS in_snapshot,
         CASE WHEN r.kind = 'site' THEN 'ads.txt' ELSE 'app-ads.txt' END AS file_kind
  FROM hosts2 r
  LEFT JOIN w.auth_sites s0 ON s0.subject = r.h0
  LEFT JOIN w.auth_sites s1 ON s1.subject = r.h1
  LEFT JOIN w.auth_sites s2 ON s2.subject = r.h2p
  LEFT JOIN w.auth_sites s3 ON s3.subject = r.h3
  LEFT JOIN w.auth_app_urls au ON au.store_url = CASE WHEN r.kind = 'app' THEN r.storeurl END
  LEFT JOIN w.auth_app_ids ai ON ai.id = CASE WHEN r.kind = 'app' AND au.store_url IS NULL THEN r.bundle END
)`;
}

export { requestsCte, subjectCte };
