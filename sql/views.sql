-- adsnap DuckDB views. Point them at a snapshot directory, then read this file:
--
--   SET VARIABLE adsnap_root = 'out';        -- the --out directory of `adsnap crawl`
--   .read sql/views.sql                      -- (duckdb CLI; or run the statements from any client)
--
-- Every table view spans all snapshot dates (Hive partition column `snapshot_date`); filter on
-- it for one snapshot. union_by_name lets snapshots written by older adsnap versions (fewer
-- columns) be read together with newer ones.
--
-- A view reads only the parts that a run manifest (DIR/_runs/<run>.json) lists: a run counts once
-- its manifest is written, so a run being committed, or one killed during its commit, is never
-- half-visible here (a plain glob of DIR/<table>/*/*.parquet could see its parts early).

CREATE OR REPLACE MACRO adsnap_parts(t) AS TABLE
  SELECT rtrim(getvariable('adsnap_root'), '/') || '/' || unnest(CAST(json_extract(tables, '$.' || t || '.parts') AS VARCHAR[])) AS file
  FROM read_json(rtrim(getvariable('adsnap_root'), '/') || '/_runs/*.json', columns = {tables: 'JSON'});

CREATE OR REPLACE VIEW targets         AS SELECT * EXCLUDE (filename) FROM read_parquet(rtrim(getvariable('adsnap_root'), '/') || '/targets/*/*.parquet',         hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('targets'));
CREATE OR REPLACE VIEW fetches         AS SELECT * EXCLUDE (filename) FROM read_parquet(rtrim(getvariable('adsnap_root'), '/') || '/fetches/*/*.parquet',         hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('fetches'));
CREATE OR REPLACE VIEW files           AS SELECT * EXCLUDE (filename) FROM read_parquet(rtrim(getvariable('adsnap_root'), '/') || '/files/*/*.parquet',           hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('files'));
CREATE OR REPLACE VIEW ads_records     AS SELECT * EXCLUDE (filename) FROM read_parquet(rtrim(getvariable('adsnap_root'), '/') || '/ads_records/*/*.parquet',     hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('ads_records'));
CREATE OR REPLACE VIEW ads_variables   AS SELECT * EXCLUDE (filename) FROM read_parquet(rtrim(getvariable('adsnap_root'), '/') || '/ads_variables/*/*.parquet',   hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('ads_variables'));
CREATE OR REPLACE VIEW parse_issues    AS SELECT * EXCLUDE (filename) FROM read_parquet(rtrim(getvariable('adsnap_root'), '/') || '/parse_issues/*/*.parquet',    hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('parse_issues'));
CREATE OR REPLACE VIEW hops            AS SELECT * EXCLUDE (filename) FROM read_parquet(rtrim(getvariable('adsnap_root'), '/') || '/hops/*/*.parquet',            hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('hops'));
CREATE OR REPLACE VIEW robots_rules    AS SELECT * EXCLUDE (filename) FROM read_parquet(rtrim(getvariable('adsnap_root'), '/') || '/robots_rules/*/*.parquet',    hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('robots_rules'));
CREATE OR REPLACE VIEW robots_sitemaps AS SELECT * EXCLUDE (filename) FROM read_parquet(rtrim(getvariable('adsnap_root'), '/') || '/robots_sitemaps/*/*.parquet', hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('robots_sitemaps'));
CREATE OR REPLACE VIEW robots_verdicts AS SELECT * EXCLUDE (filename) FROM read_parquet(rtrim(getvariable('adsnap_root'), '/') || '/robots_verdicts/*/*.parquet', hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('robots_verdicts'));
CREATE OR REPLACE VIEW apps            AS SELECT * EXCLUDE (filename) FROM read_parquet(rtrim(getvariable('adsnap_root'), '/') || '/apps/*/*.parquet',            hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('apps'));
CREATE OR REPLACE VIEW sellers         AS SELECT * EXCLUDE (filename) FROM read_parquet(rtrim(getvariable('adsnap_root'), '/') || '/sellers/*/*.parquet',         hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('sellers'));

-- Records that authorize each subject's inventory: its own file's records, plus those reached
-- through followed referrals that delegate authorization — inventorypartnerdomain= (ads.txt 1.1
-- §4.6: the partner's ads.txt) and, for apps, the developer host's app-ads.txt (app-ads.txt 1.0).
-- A subdomain= file authorizes the subdomain itself (its own rows, subject = the subdomain), not
-- the root. `valid` is the declaring file's flag: filter on it for a strict reading.
CREATE OR REPLACE VIEW authorized_sellers AS
SELECT f.snapshot_date, f.subject, r.ad_system_domain, r.seller_account_id, r.relationship, r.cert_authority_id,
       f.subject AS via_subject, 'self' AS via_kind, f.file_kind, f.status AS file_status, f.valid
FROM ads_records r
JOIN files f ON f.snapshot_date = r.snapshot_date AND f.subject = r.subject AND f.file_kind = r.file_kind
UNION ALL
SELECT h.snapshot_date, h.from_subject AS subject, r.ad_system_domain, r.seller_account_id, r.relationship, r.cert_authority_id,
       h.to_subject AS via_subject, h.kind AS via_kind, f.file_kind, f.status AS file_status, f.valid
FROM hops h
JOIN files f ON f.snapshot_date = h.snapshot_date AND f.subject = h.to_subject
            AND f.file_kind = CASE WHEN h.kind = 'inventorypartnerdomain' THEN 'ads.txt' ELSE 'app-ads.txt' END
JOIN ads_records r ON r.snapshot_date = f.snapshot_date AND r.subject = f.subject AND r.file_kind = f.file_kind
WHERE h.outcome = 'followed' AND h.kind IN ('inventorypartnerdomain', 'developer_url', 'developer_url_parent')
  -- for apps, only the host whose file was used (apps.subject) authorizes the app
  AND (h.kind = 'inventorypartnerdomain'
       OR EXISTS (SELECT 1 FROM apps a WHERE a.snapshot_date = h.snapshot_date AND a.store_url = h.from_subject AND a.subject = h.to_subject));

-- Adoption per listed domain: robots.txt, ads.txt status and size of the declaration.
CREATE OR REPLACE VIEW adoption AS
SELECT t.snapshot_date, t.target, t.rank,
       rf.status AS robots_status,
       coalesce(rf.status = 'ok', false) AS has_robots_txt,
       af.status AS ads_txt_status,
       coalesce(af.valid, false) AS ads_txt_valid,
       coalesce(af.records, 0) AS ads_txt_records,
       af.robots_allowed AS ads_txt_robots_allowed,
       (SELECT count(*) FROM hops h WHERE h.snapshot_date = t.snapshot_date AND h.from_subject = t.target AND h.kind = 'subdomain' AND h.outcome = 'followed') AS subdomains_followed,
       (SELECT count(*) FROM hops h WHERE h.snapshot_date = t.snapshot_date AND h.from_subject = t.target AND h.kind = 'inventorypartnerdomain' AND h.outcome = 'followed') AS partners_followed
FROM targets t
LEFT JOIN files rf ON rf.snapshot_date = t.snapshot_date AND rf.subject = t.target AND rf.file_kind = 'robots.txt'
LEFT JOIN files af ON af.snapshot_date = t.snapshot_date AND af.subject = t.target AND af.file_kind = 'ads.txt'
WHERE t.target_kind = 'domain';

-- Each ads.txt / app-ads.txt record against the ad system's sellers.json, with the checks
-- researchers publish: DIRECT ↔ PUBLISHER/BOTH, RESELLER ↔ INTERMEDIARY/BOTH, OWNERDOMAIN ↔
-- sellers.domain (ads.txt 1.1 §4.7: without OWNERDOMAIN the subject's own root domain is assumed),
-- and seller ids missing from a sellers.json that was read.
CREATE OR REPLACE VIEW seller_match AS
WITH seller_one AS (
  SELECT * FROM sellers
  QUALIFY row_number() OVER (PARTITION BY snapshot_date, ad_system_domain, seller_id ORDER BY seller_type NULLS LAST) = 1
), owner AS (
  SELECT snapshot_date, subject, file_kind, value_domain AS owner_domain
  FROM ads_variables WHERE name = 'OWNERDOMAIN'
  QUALIFY row_number() OVER (PARTITION BY snapshot_date, subject, file_kind ORDER BY line_no) = 1
)
SELECT r.snapshot_date, r.subject, r.file_kind, r.line_no, r.ad_system_domain, r.seller_account_id, r.relationship,
       sf.status AS sellers_json_status,
       s.seller_id IS NOT NULL AS seller_found,
       (sf.status = 'ok' AND s.seller_id IS NULL) AS seller_missing,
       s.seller_type, s.name AS seller_name, s.domain AS seller_domain, s.is_confidential,
       CASE WHEN s.seller_id IS NULL THEN NULL
            WHEN r.relationship = 'DIRECT' THEN s.seller_type IN ('PUBLISHER', 'BOTH')
            WHEN r.relationship = 'RESELLER' THEN s.seller_type IN ('INTERMEDIARY', 'BOTH')
       END AS relationship_consistent,
       coalesce(o.owner_domain, r.subject) AS owner_domain,
       CASE WHEN s.seller_id IS NULL OR r.relationship <> 'DIRECT' OR s.domain IS NULL THEN NULL
            ELSE s.domain = coalesce(o.owner_domain, r.subject) OR r.subject LIKE '%.' || s.domain
       END AS owner_domain_consistent
FROM ads_records r
LEFT JOIN files sf ON sf.snapshot_date = r.snapshot_date AND sf.subject = r.ad_system_domain AND sf.file_kind = 'sellers.json'
LEFT JOIN seller_one s ON s.snapshot_date = r.snapshot_date AND s.ad_system_domain = r.ad_system_domain AND s.seller_id = r.seller_account_id
LEFT JOIN owner o ON o.snapshot_date = r.snapshot_date AND o.subject = r.subject AND o.file_kind = r.file_kind;
