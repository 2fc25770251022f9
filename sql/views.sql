-- adsnap DuckDB views. Point them at one snapshot root (or several), then read this file:
--
--   SET VARIABLE adsnap_root = 'out';                  -- the --out directory of `adsnap crawl`
--   SET VARIABLE adsnap_roots = ['a', 'b'];            -- or several roots (shards, machines), read as one
--   SET VARIABLE adsnap_data = 'data';                 -- adsnap's data/ folder (the default, from the repository's root)
--   .read sql/views.sql                                -- (duckdb CLI; or run the statements from any client)
--
-- `adsnap sql ROOT… [QUERY]` does all of this for you.
--
-- Every table view spans all snapshot dates (Hive partition column `snapshot_date`); filter on
-- it for one snapshot. union_by_name lets snapshots written by older adsnap versions (fewer
-- columns) be read together with newer ones.
--
-- A view reads only the parts that a run manifest (ROOT/_runs/<run>.json) lists: a run counts once
-- its manifest is written, so a run being committed, or one killed during its commit, is never
-- half-visible here (a plain glob of ROOT/<table>/*/*.parquet could see its parts early).

CREATE OR REPLACE MACRO adsnap_roots() AS
  list_transform(coalesce(CAST(getvariable('adsnap_roots') AS VARCHAR[]), [CAST(getvariable('adsnap_root') AS VARCHAR)]), r -> rtrim(r, '/'));

-- The folder of adsnap's data tables (data/ad-system-companies.tsv): the variable adsnap_data, which
-- `adsnap sql` and the report set to the installed package's data/ folder; 'data' without it (a
-- plain DuckDB started at the repository's root).
CREATE OR REPLACE MACRO adsnap_data_dir() AS coalesce(CAST(getvariable('adsnap_data') AS VARCHAR), 'data');

-- How a sellers.json `domain` (and an OWNERDOMAIN, a subject) is compared: its host, trimmed,
-- lower-cased, scheme, path, query, fragment, port and trailing dots dropped
-- ('https://MidReseller.com:443/x' → 'midreseller.com'). The crawl follows intermediaries with the
-- same reduction (sellerDomainHost in src/resolve/intermediaries.ts; a test holds them equal).
CREATE OR REPLACE MACRO adsnap_host(s) AS
  nullif(regexp_replace(regexp_replace(regexp_replace(regexp_replace(lower(regexp_replace(s, '^[ \t\n\r\f\v]+|[ \t\n\r\f\v]+$', '', 'g')),
    '^[a-z][a-z0-9+.-]*://', ''), '(?s)[/?#].*$', ''), ':[0-9]*$', ''), '\.+$', ''), '');

-- How seller ids are matched, as the published studies match them (IEEE S&P 2024, CNIL LINC 2020,
-- Web Almanac 2024): trimmed and lower-cased on both sides ('PUB-123 ' = 'pub-123').
CREATE OR REPLACE MACRO adsnap_seller_key(s) AS
  lower(trim(s, ' ' || chr(9) || chr(10) || chr(11) || chr(12) || chr(13)));

CREATE OR REPLACE MACRO adsnap_parts(t) AS TABLE
  SELECT regexp_replace(filename, '/_runs/[^/]*$', '') || '/' || unnest(CAST(json_extract(tables, '$.' || t || '.parts') AS VARCHAR[])) AS file
  FROM read_json(list_transform(adsnap_roots(), r -> r || '/_runs/*.json'), columns = {tables: 'JSON'}, filename = true);

CREATE OR REPLACE VIEW targets         AS SELECT * EXCLUDE (filename) FROM read_parquet(list_transform(adsnap_roots(), r -> r || '/targets/*/*.parquet'), hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('targets'));
CREATE OR REPLACE VIEW fetches         AS SELECT * EXCLUDE (filename) FROM read_parquet(list_transform(adsnap_roots(), r -> r || '/fetches/*/*.parquet'), hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('fetches'));
CREATE OR REPLACE VIEW files           AS SELECT * EXCLUDE (filename) FROM read_parquet(list_transform(adsnap_roots(), r -> r || '/files/*/*.parquet'), hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('files'));
CREATE OR REPLACE VIEW ads_records     AS SELECT * EXCLUDE (filename) FROM read_parquet(list_transform(adsnap_roots(), r -> r || '/ads_records/*/*.parquet'), hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('ads_records'));
CREATE OR REPLACE VIEW ads_variables   AS SELECT * EXCLUDE (filename) FROM read_parquet(list_transform(adsnap_roots(), r -> r || '/ads_variables/*/*.parquet'), hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('ads_variables'));
CREATE OR REPLACE VIEW parse_issues    AS SELECT * EXCLUDE (filename) FROM read_parquet(list_transform(adsnap_roots(), r -> r || '/parse_issues/*/*.parquet'), hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('parse_issues'));
CREATE OR REPLACE VIEW hops            AS SELECT * EXCLUDE (filename) FROM read_parquet(list_transform(adsnap_roots(), r -> r || '/hops/*/*.parquet'), hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('hops'));
CREATE OR REPLACE VIEW robots_rules    AS SELECT * EXCLUDE (filename) FROM read_parquet(list_transform(adsnap_roots(), r -> r || '/robots_rules/*/*.parquet'), hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('robots_rules'));
CREATE OR REPLACE VIEW robots_sitemaps AS SELECT * EXCLUDE (filename) FROM read_parquet(list_transform(adsnap_roots(), r -> r || '/robots_sitemaps/*/*.parquet'), hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('robots_sitemaps'));
CREATE OR REPLACE VIEW robots_verdicts AS SELECT * EXCLUDE (filename) FROM read_parquet(list_transform(adsnap_roots(), r -> r || '/robots_verdicts/*/*.parquet'), hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('robots_verdicts'));
CREATE OR REPLACE VIEW apps            AS SELECT * EXCLUDE (filename) FROM read_parquet(list_transform(adsnap_roots(), r -> r || '/apps/*/*.parquet'), hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('apps'));
CREATE OR REPLACE VIEW sellers         AS SELECT * EXCLUDE (filename) FROM read_parquet(list_transform(adsnap_roots(), r -> r || '/sellers/*/*.parquet'), hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('sellers'));
CREATE OR REPLACE VIEW sellers_files   AS SELECT * EXCLUDE (filename) FROM read_parquet(list_transform(adsnap_roots(), r -> r || '/sellers_files/*/*.parquet'), hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('sellers_files'));
CREATE OR REPLACE VIEW buyers          AS SELECT * EXCLUDE (filename) FROM read_parquet(list_transform(adsnap_roots(), r -> r || '/buyers/*/*.parquet'), hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('buyers'));
CREATE OR REPLACE VIEW buyers_files    AS SELECT * EXCLUDE (filename) FROM read_parquet(list_transform(adsnap_roots(), r -> r || '/buyers_files/*/*.parquet'), hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('buyers_files'));
CREATE OR REPLACE VIEW robots_agent_access AS SELECT * EXCLUDE (filename) FROM read_parquet(list_transform(adsnap_roots(), r -> r || '/robots_agent_access/*/*.parquet'), hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('robots_agent_access'));
CREATE OR REPLACE VIEW robots_usage_signals AS SELECT * EXCLUDE (filename) FROM read_parquet(list_transform(adsnap_roots(), r -> r || '/robots_usage_signals/*/*.parquet'), hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('robots_usage_signals'));
CREATE OR REPLACE VIEW agents_catalogue AS SELECT * EXCLUDE (filename) FROM read_parquet(list_transform(adsnap_roots(), r -> r || '/agents_catalogue/*/*.parquet'), hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('agents_catalogue'));

-- Which subjects are listed (the input's sites, and its apps by store URL), per snapshot.
CREATE OR REPLACE VIEW listed_subjects AS
SELECT DISTINCT snapshot_date, target AS subject, 'domain' AS subject_kind FROM targets WHERE target_kind = 'domain'
UNION
SELECT DISTINCT snapshot_date, store_url AS subject, 'app' AS subject_kind FROM apps;

-- Records that authorize each subject's inventory: one row per distinct record and subject.
-- - Every subject that has an ads.txt / app-ads.txt (a listed site, a declared subdomain, an
--   inventory partner, an app's developer host) authorizes its own records ('self'); `listed`
--   says whether the subject is one of the input's sites or apps.
-- - A file's inventorypartnerdomain= (ads.txt 1.1 §4.6, one hop) delegates to the partner's ads.txt.
-- - An app (subject = its store URL, listed) is authorized by the app-ads.txt of the developer
--   host whose file was used (apps.subject; app-ads.txt 1.0), and through it by that file's
--   inventory partners (app → developer host → partner).
-- A subdomain= file authorizes the subdomain itself (subject = the subdomain), not the root.
-- `valid` is the declaring file's flag: filter on it for a strict reading.
CREATE OR REPLACE VIEW authorized_sellers AS
WITH fr AS (
  SELECT DISTINCT r.snapshot_date, r.subject, r.file_kind, r.ad_system_domain, r.seller_account_id, r.relationship, r.cert_authority_id,
         f.status AS file_status, f.valid
  FROM ads_records r
  JOIN files f ON f.snapshot_date = r.snapshot_date AND f.subject = r.subject AND f.file_kind = r.file_kind
), partner_hops AS (
  SELECT DISTINCT snapshot_date, from_subject, from_file_kind, to_subject FROM hops
  WHERE kind = 'inventorypartnerdomain' AND outcome = 'followed'
), app_hosts AS (
  SELECT DISTINCT a.snapshot_date, a.store_url AS app, a.subject AS host, h.kind AS via_kind
  FROM apps a
  JOIN hops h ON h.snapshot_date = a.snapshot_date AND h.from_subject = a.store_url AND h.to_subject = a.subject
             AND h.kind IN ('developer_url', 'developer_url_parent') AND h.outcome = 'followed'
  WHERE a.subject IS NOT NULL
), chains AS (
  SELECT snapshot_date, subject, ad_system_domain, seller_account_id, relationship, cert_authority_id,
         subject AS via_subject, 'self' AS via_kind, file_kind, file_status, valid
  FROM fr
  UNION ALL
  SELECT p.snapshot_date, p.from_subject, fr.ad_system_domain, fr.seller_account_id, fr.relationship, fr.cert_authority_id,
         p.to_subject, 'inventorypartnerdomain', fr.file_kind, fr.file_status, fr.valid
  FROM partner_hops p JOIN fr ON fr.snapshot_date = p.snapshot_date AND fr.subject = p.to_subject AND fr.file_kind = 'ads.txt'
  UNION ALL
  SELECT ah.snapshot_date, ah.app, fr.ad_system_domain, fr.seller_account_id, fr.relationship, fr.cert_authority_id,
         ah.host, ah.via_kind, fr.file_kind, fr.file_status, fr.valid
  FROM app_hosts ah JOIN fr ON fr.snapshot_date = ah.snapshot_date AND fr.subject = ah.host AND fr.file_kind = 'app-ads.txt'
  UNION ALL
  SELECT ah.snapshot_date, ah.app, fr.ad_system_domain, fr.seller_account_id, fr.relationship, fr.cert_authority_id,
         p.to_subject, 'inventorypartnerdomain', fr.file_kind, fr.file_status, fr.valid
  FROM app_hosts ah
  JOIN partner_hops p ON p.snapshot_date = ah.snapshot_date AND p.from_subject = ah.host AND p.from_file_kind = 'app-ads.txt'
  JOIN fr ON fr.snapshot_date = p.snapshot_date AND fr.subject = p.to_subject AND fr.file_kind = 'ads.txt'
)
SELECT DISTINCT c.snapshot_date, c.subject, l.subject IS NOT NULL AS listed,
       c.ad_system_domain, c.seller_account_id, c.relationship, c.cert_authority_id,
       c.via_subject, c.via_kind, c.file_kind, c.file_status, c.valid
FROM chains c
LEFT JOIN listed_subjects l ON l.snapshot_date = c.snapshot_date AND l.subject = c.subject;

-- Adoption per listed domain: robots.txt, ads.txt status (what the content was, however it was
-- obtained) and size of the declaration.
CREATE OR REPLACE VIEW adoption AS
SELECT t.snapshot_date, t.target, t.rank,
       rf.status AS robots_status,
       coalesce(rf.status = 'ok', false) AS has_robots_txt,
       af.status AS ads_txt_status,
       af.obtained AS ads_txt_obtained,
       coalesce(af.valid, false) AS ads_txt_valid,
       coalesce(af.records, 0) AS ads_txt_records,
       af.robots_allowed AS ads_txt_robots_allowed,
       (SELECT count(*) FROM hops h WHERE h.snapshot_date = t.snapshot_date AND h.from_subject = t.target AND h.kind = 'subdomain' AND h.outcome = 'followed') AS subdomains_followed,
       (SELECT count(*) FROM hops h WHERE h.snapshot_date = t.snapshot_date AND h.from_subject = t.target AND h.kind = 'inventorypartnerdomain' AND h.outcome = 'followed') AS partners_followed
FROM targets t
LEFT JOIN files rf ON rf.snapshot_date = t.snapshot_date AND rf.subject = t.target AND rf.file_kind = 'robots.txt'
LEFT JOIN files af ON af.snapshot_date = t.snapshot_date AND af.subject = t.target AND af.file_kind = 'ads.txt'
WHERE t.target_kind = 'domain';

-- Each ads.txt / app-ads.txt record against the ad system's sellers.json (however that file was
-- obtained, wherever the ad system publishes it), with the checks researchers publish: DIRECT ↔
-- PUBLISHER/BOTH, RESELLER ↔ INTERMEDIARY/BOTH, OWNERDOMAIN ↔ sellers.domain (ads.txt 1.1 §4.7:
-- the file's first OWNERDOMAIN decides; without one the subject's own root domain is assumed, so
-- the subject or a domain it is a subdomain of matches), and seller ids missing from a
-- sellers.json that was read whole and valid. `seller_match_all` has every record, `file_valid`
-- saying whether its file was valid; `seller_match` only the records of valid files (what a buyer
-- would use).
-- Seller ids match as the studies match them: trimmed and case-insensitively (`seller_found`;
-- `seller_missing` and `relationship_consistent` follow it); `seller_found_exact` is the
-- byte-for-byte answer. The entry whose id is the record's byte for byte is preferred, else the
-- first by seller_type. OWNERDOMAIN and sellers.domain compare as hosts (adsnap_host).
CREATE OR REPLACE VIEW seller_match_all AS
WITH seller_exact AS (
  SELECT *, adsnap_host(domain) AS domain_host FROM sellers
  QUALIFY row_number() OVER (PARTITION BY snapshot_date, ad_system_domain, seller_id ORDER BY seller_type NULLS LAST) = 1
), seller_folded AS (
  SELECT *, adsnap_seller_key(seller_id) AS seller_key, adsnap_host(domain) AS domain_host FROM sellers WHERE seller_id IS NOT NULL
  QUALIFY row_number() OVER (PARTITION BY snapshot_date, ad_system_domain, adsnap_seller_key(seller_id) ORDER BY seller_type NULLS LAST, seller_id) = 1
), matched AS (
  SELECT r.* EXCLUDE (e_seller_id, e_seller_type, e_name, e_domain, e_domain_host, e_is_confidential, fold_key),
         r.e_seller_id IS NOT NULL AS found_exact, coalesce(r.e_seller_id, k.seller_id) IS NOT NULL AS found,
         CASE WHEN r.e_seller_id IS NOT NULL THEN r.e_seller_type ELSE k.seller_type END AS s_seller_type,
         CASE WHEN r.e_seller_id IS NOT NULL THEN r.e_name ELSE k.name END AS s_name,
         CASE WHEN r.e_seller_id IS NOT NULL THEN r.e_domain ELSE k.domain END AS s_domain,
         CASE WHEN r.e_seller_id IS NOT NULL THEN r.e_domain_host ELSE k.domain_host END AS s_domain_host,
         CASE WHEN r.e_seller_id IS NOT NULL THEN r.e_is_confidential ELSE k.is_confidential END AS s_is_confidential
  FROM (
    -- The folded key only where the id has no byte-for-byte match (NULL joins nothing).
    SELECT r.*, e.seller_id AS e_seller_id, e.seller_type AS e_seller_type, e.name AS e_name, e.domain AS e_domain,
           e.domain_host AS e_domain_host, e.is_confidential AS e_is_confidential,
           CASE WHEN e.seller_id IS NULL THEN adsnap_seller_key(r.seller_account_id) END AS fold_key
    FROM ads_records r
    LEFT JOIN seller_exact e ON e.snapshot_date = r.snapshot_date AND e.ad_system_domain = r.ad_system_domain AND e.seller_id = r.seller_account_id
  ) r
  LEFT JOIN seller_folded k ON k.snapshot_date = r.snapshot_date AND k.ad_system_domain = r.ad_system_domain AND k.seller_key = r.fold_key
), owner AS (
  SELECT snapshot_date, subject, file_kind, value_domain AS owner_domain, adsnap_host(value_domain) AS owner_host
  FROM ads_variables WHERE name = 'OWNERDOMAIN'
  QUALIFY row_number() OVER (PARTITION BY snapshot_date, subject, file_kind ORDER BY line_no) = 1
)
SELECT r.snapshot_date, r.subject, r.file_kind, r.line_no, r.ad_system_domain, r.seller_account_id, r.relationship,
       coalesce(f.valid, false) AS file_valid,
       sf.status AS sellers_json_status,
       sf.obtained AS sellers_json_obtained,
       r.found AS seller_found,
       (coalesce(sf.valid, false) AND NOT r.found) AS seller_missing,
       r.s_seller_type AS seller_type, r.s_name AS seller_name, r.s_domain AS seller_domain, r.s_is_confidential AS is_confidential,
       CASE WHEN NOT r.found THEN NULL
            WHEN r.relationship = 'DIRECT' THEN r.s_seller_type IN ('PUBLISHER', 'BOTH')
            WHEN r.relationship = 'RESELLER' THEN r.s_seller_type IN ('INTERMEDIARY', 'BOTH')
       END AS relationship_consistent,
       coalesce(o.owner_domain, r.subject) AS owner_domain,
       -- Hosts of the seller's domain and of OWNERDOMAIN are computed once per entry and line (the
       -- CTEs above); a subject is already a lower-case host, the regular expressions leave it as is.
       -- The file's OWNERDOMAIN decides when it declares one; without it the subject, or a domain
       -- it is a subdomain of, matches (§4.7: the subject's own root domain is assumed).
       CASE WHEN NOT r.found OR r.relationship <> 'DIRECT' OR r.s_domain_host IS NULL THEN NULL
            WHEN o.owner_domain IS NOT NULL THEN r.s_domain_host = o.owner_host
            ELSE r.s_domain_host = r.subject OR ends_with(r.subject, '.' || r.s_domain_host)
       END AS owner_domain_consistent,
       r.found_exact AS seller_found_exact
FROM matched r
LEFT JOIN files f ON f.snapshot_date = r.snapshot_date AND f.subject = r.subject AND f.file_kind = r.file_kind
LEFT JOIN files sf ON sf.snapshot_date = r.snapshot_date AND sf.subject = r.ad_system_domain AND sf.file_kind = 'sellers.json'
LEFT JOIN owner o ON o.snapshot_date = r.snapshot_date AND o.subject = r.subject AND o.file_kind = r.file_kind;

CREATE OR REPLACE VIEW seller_match AS SELECT * EXCLUDE (file_valid) FROM seller_match_all WHERE file_valid;

-- Per night and ad system: the records (of valid files) naming it, how many can be checked
-- against its sellers.json (`checkable`: the file was read whole and valid), how many name a
-- seller found there, and where the file was asked for (that night's request, or for a copy
-- reused without one, the latest earlier night's): `at_spec_location` is true for the spec's
-- https://<ad system>/sellers.json, false for a location (data/sellers-locations.tsv,
-- --sellers-location), NULL when no request for it is known in the roots read (a copy reused
-- since a night they do not hold): then it is at neither. The records checkable only thanks to a
-- location are `checkable` where `NOT at_spec_location`; those checkable at the spec's location,
-- where `at_spec_location`. The spec's location is asked first, the table's after it: where a file
-- was read, sellers_files.location says which served it (snapshots before that column: the
-- first request's URL).
CREATE OR REPLACE VIEW ad_system_coverage AS
WITH requests AS (
  SELECT snapshot_date, subject, arg_min(url, started_at) AS url FROM fetches WHERE file_kind = 'sellers.json' GROUP BY ALL
), nights AS (
  SELECT DISTINCT snapshot_date, ad_system_domain FROM seller_match
), asked AS (
  SELECT n.snapshot_date, n.ad_system_domain, q.url
  FROM nights n ASOF LEFT JOIN requests q ON q.subject = n.ad_system_domain AND q.snapshot_date <= n.snapshot_date
)
SELECT m.snapshot_date, m.ad_system_domain, count(*) AS records,
       count(*) FILTER (WHERE coalesce(sf.valid, false)) AS checkable,
       count(*) FILTER (WHERE m.seller_found) AS found,
       any_value(sf.status) AS sellers_json_status,
       coalesce(any_value(sl.location_url), any_value(a.url)) AS sellers_json_url,
       coalesce(any_value(sl.location) = 'spec', any_value(a.url) = 'https://' || m.ad_system_domain || '/sellers.json') AS at_spec_location
FROM seller_match m
LEFT JOIN files sf ON sf.snapshot_date = m.snapshot_date AND sf.subject = m.ad_system_domain AND sf.file_kind = 'sellers.json'
LEFT JOIN asked a ON a.snapshot_date = m.snapshot_date AND a.ad_system_domain = m.ad_system_domain
-- Read through to_json: snapshots written before the location columns existed have none (NULL here).
LEFT JOIN (SELECT snapshot_date, ad_system_domain, to_json(s) ->> 'location' AS location, to_json(s) ->> 'location_url' AS location_url FROM sellers_files s) sl
  ON sl.snapshot_date = m.snapshot_date AND sl.ad_system_domain = m.ad_system_domain
GROUP BY m.snapshot_date, m.ad_system_domain;

-- The supply chain behind each ad system: every entry of the sellers.json of `via_domain`, for each
-- ad system (a sellers.json fetched as `via = 'ad_system'`) from whose file `via_domain` is reached
-- through `depth` INTERMEDIARY/BOTH links (each link: an entry of that type whose domain, as a host,
-- is the next file's domain; depth 0: the ad system's own file). The smallest depth per (ad system,
-- via domain); cycles end there. `seller_domain` is the entry's domain as a host (adsnap_host).
-- Only files the crawl fetched have entries: `--sellers-depth` and the night's bound cut the walk.
-- Needs DuckDB ≥ 1.3 (recursive CTE USING KEY).
CREATE OR REPLACE VIEW seller_reach AS
WITH RECURSIVE links AS (
  SELECT DISTINCT snapshot_date, ad_system_domain AS from_domain, adsnap_host(domain) AS to_domain
  FROM sellers
  WHERE seller_type IN ('INTERMEDIARY', 'BOTH') AND adsnap_host(domain) IS NOT NULL
), ad_systems AS (
  SELECT DISTINCT snapshot_date, subject AS ad_system_domain FROM files WHERE file_kind = 'sellers.json' AND via = 'ad_system'
), reach(snapshot_date, ad_system_domain, via_domain, depth) USING KEY (snapshot_date, ad_system_domain, via_domain) AS (
  SELECT snapshot_date, ad_system_domain, ad_system_domain, 0 FROM ad_systems
  UNION
  -- One level per step (the working table is the last level), so the first depth a key gets is its smallest.
  SELECT r.snapshot_date, r.ad_system_domain, l.to_domain, r.depth + 1
  FROM reach r JOIN links l ON l.snapshot_date = r.snapshot_date AND l.from_domain = r.via_domain
  WHERE NOT EXISTS (SELECT 1 FROM recurring.reach x
                    WHERE x.snapshot_date = r.snapshot_date AND x.ad_system_domain = r.ad_system_domain AND x.via_domain = l.to_domain)
)
SELECT r.snapshot_date, r.ad_system_domain, r.depth, r.via_domain, s.seller_id, s.seller_type, adsnap_host(s.domain) AS seller_domain
FROM reach r
JOIN sellers s ON s.snapshot_date = r.snapshot_date AND s.ad_system_domain = r.via_domain;

-- sellers.json availability, ad systems and intermediaries apart: per night, role, status, the
-- files and their share of the role's files. role 'ad_system': the sellers.json of an ad system a
-- record names (files.via 'ad_system'); 'intermediary': one reached only through an
-- INTERMEDIARY/BOTH entry of another sellers.json (its domain, asked whether or not it publishes
-- one, so most answer 404). `readable`: the file was read (status 'ok').
CREATE OR REPLACE VIEW sellers_json_availability AS
SELECT snapshot_date, role, status, any_value(status = 'ok') AS readable, count(*) AS files,
       count(*) / sum(count(*)) OVER (PARTITION BY snapshot_date, role) AS share
FROM (SELECT snapshot_date, CASE WHEN via = 'intermediary' THEN 'intermediary' ELSE 'ad_system' END AS role, status
      FROM files WHERE file_kind = 'sellers.json')
GROUP BY snapshot_date, role, status;

-- Companies. data/ad-system-companies.tsv maps an ad-system domain (ads.txt field 1) to the company
-- that operates it (after acquisitions and renames), each entry with its source and date: count
-- companies as CNIL LINC 2020 and IMC 2019 do, beside domains. A domain not in the table is its
-- own company: adsnap_company(d) gives the table's company, else d itself. The table is read from
-- the folder `adsnap_data` names (adsnap_data_dir()).
-- Columns: ad_system_domain, company, source (a URL and what it says), brand (the name the domain
-- was known by), basis ('own_domain', 'acquisition', 'rename'), source_date.
CREATE OR REPLACE VIEW ad_system_companies AS
SELECT lower(trim(ad_system_domain)) AS ad_system_domain, trim(company) AS company, trim(source) AS source,
       trim(brand) AS brand, trim(basis) AS basis, trim(date) AS source_date
FROM read_csv(adsnap_data_dir() || '/ad-system-companies.tsv', delim = '\t', header = true, comment = '#', quote = '', escape = '',
              auto_detect = false, columns = {ad_system_domain: 'VARCHAR', company: 'VARCHAR', brand: 'VARCHAR', basis: 'VARCHAR', source: 'VARCHAR', date: 'VARCHAR'});

-- adsnap_company(d): the company of ad-system domain d (case-insensitive), d itself when the table
-- does not list it.
CREATE OR REPLACE MACRO adsnap_company(d) AS
  coalesce((SELECT any_value(c.company) FROM ad_system_companies c WHERE c.ad_system_domain = lower(d)), lower(d));

-- Candidate aliases for review: pairs of ad-system domains that the night's own evidence suggests
-- one company runs. `evidence` says which:
-- - 'cert_authority_id': both domains' own certification-authority id (ads.txt field 4) is the
--   same. A domain's own id is the one most of its files give it (at least 3 files, and more than
--   half of the files that give it an id), so a line copied with another exchange's id does not
--   count; `files` is the smaller domain's count.
-- - 'sellers_json_content': both sellers.json files read on the night (status 'ok') have the same
--   body (sha256).
-- - 'sellers_json_url': both were read from the same URL after redirects (files.url).
-- `detail` is the id, the sha256 or the URL. `company` / `other_company` are from
-- ad_system_companies (NULL when not listed); `known_same_company` is true where the table already
-- joins them, so the pairs to review are those where it is false.
CREATE OR REPLACE VIEW ad_system_alias_candidates AS
WITH cert_use AS (
  SELECT snapshot_date, ad_system_domain, lower(trim(cert_authority_id)) AS cert, count(DISTINCT (subject, file_kind)) AS files
  FROM ads_records WHERE nullif(trim(cert_authority_id), '') IS NOT NULL
  GROUP BY ALL
), own_cert AS (
  SELECT snapshot_date, ad_system_domain, cert, files FROM (
    SELECT *, sum(files) OVER (PARTITION BY snapshot_date, ad_system_domain) AS total,
           row_number() OVER (PARTITION BY snapshot_date, ad_system_domain ORDER BY files DESC, cert) AS rank
    FROM cert_use
  ) WHERE rank = 1 AND files >= 3 AND files * 2 > total
), sellers_read AS (
  SELECT snapshot_date, subject, sha256, url FROM files WHERE file_kind = 'sellers.json' AND status = 'ok'
), pairs AS (
  SELECT a.snapshot_date, a.ad_system_domain, b.ad_system_domain AS other_domain, 'cert_authority_id' AS evidence, a.cert AS detail,
         least(a.files, b.files) AS files
  FROM own_cert a JOIN own_cert b ON b.snapshot_date = a.snapshot_date AND b.cert = a.cert AND b.ad_system_domain > a.ad_system_domain
  UNION ALL
  SELECT a.snapshot_date, a.subject, b.subject, 'sellers_json_content', a.sha256, NULL
  FROM sellers_read a JOIN sellers_read b ON b.snapshot_date = a.snapshot_date AND b.sha256 = a.sha256 AND b.subject > a.subject
  UNION ALL
  SELECT a.snapshot_date, a.subject, b.subject, 'sellers_json_url', a.url, NULL
  FROM sellers_read a JOIN sellers_read b ON b.snapshot_date = a.snapshot_date AND b.url = a.url AND b.subject > a.subject
)
SELECT p.snapshot_date, p.ad_system_domain, p.other_domain, p.evidence, p.detail, p.files,
       ca.company, cb.company AS other_company, coalesce(ca.company = cb.company, false) AS known_same_company
FROM pairs p
LEFT JOIN ad_system_companies ca ON ca.ad_system_domain = p.ad_system_domain
LEFT JOIN ad_system_companies cb ON cb.ad_system_domain = p.other_domain;

-- The series. A file is *observed* on a night when the site answered with the whole file or a
-- 404. A file carried forward after a failed request, a night the site was unreachable or
-- refused, and a file cut at the byte cap say nothing certain about what it held. A sellers.json is
-- observed when it was read (status 'ok') or answered 404: one that could not be read as a
-- sellers.json that night (not JSON, cut, not a sellers.json, an HTML page) is not an observation,
-- so the next readable night is compared with the last readable one before it, and the unreadable
-- night lists no change. Changes are between consecutive observations of the same subject: a
-- record is 'added' when it is in the later file and not the earlier, 'removed' the other way (a file that became a 404, or an HTML
-- page, removes all its records). Records are compared on their four fields. Two observations
-- of the same body (same sha256 and status) hold the same records, so only the pairs whose body
-- or status differ are compared record by record: a series of 30 nights reads the records of
-- the files that changed, not every record of every night.
CREATE OR REPLACE VIEW file_observations AS
SELECT snapshot_date, subject, file_kind, status, sha256,
       lag(snapshot_date) OVER w AS previous_date,
       lag(status) OVER w AS previous_status,
       lag(sha256) OVER w AS previous_sha256
FROM files
WHERE CASE WHEN file_kind = 'sellers.json' THEN status IN ('ok', 'not_found')
           ELSE status IN ('ok', 'placeholder', 'empty', 'html', 'invalid_content_type', 'not_found') END
  AND coalesce(obtained, 'fetched') <> 'carried_forward'
WINDOW w AS (PARTITION BY subject, file_kind ORDER BY snapshot_date);

CREATE OR REPLACE VIEW record_changes AS
WITH obs AS (
  SELECT snapshot_date, previous_date, subject, file_kind FROM file_observations
  WHERE file_kind IN ('ads.txt', 'app-ads.txt') AND previous_date IS NOT NULL
    AND (sha256 IS DISTINCT FROM previous_sha256 OR status IS DISTINCT FROM previous_status)
), wanted AS (
  SELECT snapshot_date AS night, subject, file_kind FROM obs UNION SELECT previous_date, subject, file_kind FROM obs
), recs AS MATERIALIZED (
  -- The records of both sides of every pair, read in one pass over ads_records.
  SELECT r.snapshot_date, r.subject, r.file_kind, r.ad_system_domain, r.seller_account_id, r.relationship, r.cert_authority_id
  FROM ads_records r SEMI JOIN wanted w ON w.night = r.snapshot_date AND w.subject = r.subject AND w.file_kind = r.file_kind
), sides AS (
  SELECT o.snapshot_date, o.previous_date, o.subject, o.file_kind, r.ad_system_domain, r.seller_account_id, r.relationship, r.cert_authority_id, true AS later
  FROM obs o JOIN recs r ON r.snapshot_date = o.snapshot_date AND r.subject = o.subject AND r.file_kind = o.file_kind
  UNION ALL
  SELECT o.snapshot_date, o.previous_date, o.subject, o.file_kind, r.ad_system_domain, r.seller_account_id, r.relationship, r.cert_authority_id, false
  FROM obs o JOIN recs r ON r.snapshot_date = o.previous_date AND r.subject = o.subject AND r.file_kind = o.file_kind
)
-- A record found on one side of its pair only (a line written twice counts once; grouping treats
-- NULLs as equal, so a record without a certification id matches its twin) was added or removed.
SELECT snapshot_date, previous_date, subject, file_kind, CASE WHEN bool_and(later) THEN 'added' ELSE 'removed' END AS change,
       ad_system_domain, seller_account_id, relationship, cert_authority_id
FROM sides
GROUP BY snapshot_date, previous_date, subject, file_kind, ad_system_domain, seller_account_id, relationship, cert_authority_id
HAVING bool_and(later) OR NOT bool_or(later);

-- sellers.json entries between consecutive observations of the same ad system's file (read, or a
-- 404; a night it could not be read is skipped, see above): 'added', 'removed', 'type_changed'
-- (seller_type), 'name_changed' (name), 'domain_changed' (domain).
CREATE OR REPLACE VIEW seller_changes AS
WITH obs AS (
  SELECT snapshot_date, subject AS ad_system_domain, previous_date FROM file_observations
  WHERE file_kind = 'sellers.json' AND previous_date IS NOT NULL
    AND (sha256 IS DISTINCT FROM previous_sha256 OR status IS DISTINCT FROM previous_status)
), one AS (
  SELECT snapshot_date, ad_system_domain, seller_id, seller_type, name, domain FROM sellers
  WHERE seller_id IS NOT NULL
  QUALIFY row_number() OVER (PARTITION BY snapshot_date, ad_system_domain, seller_id ORDER BY seller_type NULLS LAST, name NULLS LAST) = 1
), cur AS (
  SELECT o.snapshot_date, o.previous_date, o.ad_system_domain, n.seller_id, n.seller_type, n.name, n.domain
  FROM obs o JOIN one n ON n.snapshot_date = o.snapshot_date AND n.ad_system_domain = o.ad_system_domain
), prev AS (
  SELECT o.snapshot_date, o.previous_date, o.ad_system_domain, p.seller_id, p.seller_type, p.name, p.domain
  FROM obs o JOIN one p ON p.snapshot_date = o.previous_date AND p.ad_system_domain = o.ad_system_domain
), pairs AS (
  SELECT coalesce(c.snapshot_date, p.snapshot_date) AS snapshot_date, coalesce(c.previous_date, p.previous_date) AS previous_date,
         coalesce(c.ad_system_domain, p.ad_system_domain) AS ad_system_domain, coalesce(c.seller_id, p.seller_id) AS seller_id,
         c.seller_id IS NOT NULL AS now_there, p.seller_id IS NOT NULL AS was_there,
         c.seller_type, p.seller_type AS previous_seller_type, c.name, p.name AS previous_name, c.domain, p.domain AS previous_domain
  FROM cur c FULL JOIN prev p ON c.snapshot_date = p.snapshot_date AND c.ad_system_domain = p.ad_system_domain AND c.seller_id = p.seller_id
)
SELECT * EXCLUDE (now_there, was_there) FROM (
  SELECT *, 'added' AS change FROM pairs WHERE now_there AND NOT was_there
  UNION ALL BY NAME SELECT *, 'removed' AS change FROM pairs WHERE was_there AND NOT now_there
  UNION ALL BY NAME SELECT *, 'type_changed' AS change FROM pairs WHERE now_there AND was_there AND seller_type IS DISTINCT FROM previous_seller_type
  UNION ALL BY NAME SELECT *, 'name_changed' AS change FROM pairs WHERE now_there AND was_there AND name IS DISTINCT FROM previous_name
  UNION ALL BY NAME SELECT *, 'domain_changed' AS change FROM pairs WHERE now_there AND was_there AND domain IS DISTINCT FROM previous_domain
);

-- First and last night each record (per subject and file) and each seller was seen, over the
-- whole series, and on how many nights.
CREATE OR REPLACE VIEW record_history AS
SELECT subject, file_kind, ad_system_domain, seller_account_id, relationship, cert_authority_id,
       min(snapshot_date) AS first_seen, max(snapshot_date) AS last_seen, count(DISTINCT snapshot_date) AS nights
FROM ads_records
GROUP BY ALL;

CREATE OR REPLACE VIEW seller_history AS
SELECT ad_system_domain, seller_id,
       min(snapshot_date) AS first_seen, max(snapshot_date) AS last_seen, count(DISTINCT snapshot_date) AS nights,
       arg_max(seller_type, snapshot_date) AS latest_seller_type, arg_max(name, snapshot_date) AS latest_name
FROM sellers
GROUP BY ALL;

-- AI and ad crawlers (docs/reference/ai-crawlers.md). robots_agent_access has, per host and night,
-- a '*' row (what every catalogue agent that no group names gets) and a row per catalogue agent a
-- group names; agents_catalogue lists the night's agents. The sites are the listed sites (their
-- robots.txt has files.via = 'root').
-- What the site said, not what a crawler must do: RFC 9309 §2.3.1 tells a crawler to treat a
-- robots.txt it could not read as disallowing everything (5xx, network: 'full' via 'unreachable'
-- in robots_agent_access, and adsnap itself crawls so) or, for a 4xx, as allowing everything
-- ('none' via 'absent'). A site whose robots.txt content was not seen said neither, so the views
-- below give it the level 'unknown': a bot wall ('blocked'), a 429 ('rate_limited'), a 5xx or
-- other non-4xx error ('http_error'), a network failure ('unreachable') or a redirect chain given
-- up ('redirect_error') (adsnap_robots_unseen). 'none' is only where the content was seen, or a
-- 4xx (404, 401/403 without a wall, 410, …) said there is none. A copy kept from an earlier night
-- (RFC 9309 §2.4 caching) is content seen.
CREATE OR REPLACE MACRO adsnap_robots_unseen(status, http_status) AS
  status IN ('blocked', 'rate_limited', 'unreachable', 'redirect_error')
  OR (status = 'http_error' AND NOT coalesce(http_status BETWEEN 400 AND 499, false));

-- agent_sites: one row per night and listed site: its robots.txt status and HTTP status, and its
-- '*' answer (`blocked` 'unknown' where the content was not seen, `via` as robots_agent_access).
CREATE OR REPLACE VIEW agent_sites AS
SELECT a.snapshot_date, a.host, f.status AS robots_status, f.http_status AS robots_http_status,
       CASE WHEN adsnap_robots_unseen(f.status, f.http_status) THEN 'unknown' ELSE a.blocked END AS blocked, a.via
FROM robots_agent_access a
JOIN (
  -- One robots.txt row per night and site (as the semi-join this replaces: a row never doubles).
  SELECT snapshot_date, subject, status, http_status FROM files WHERE file_kind = 'robots.txt' AND via = 'root'
  QUALIFY row_number() OVER (PARTITION BY snapshot_date, subject ORDER BY status, http_status) = 1
) f ON f.snapshot_date = a.snapshot_date AND f.subject = a.host
WHERE a.user_agent = '*';

-- agent_access: one row per night, site and catalogue agent (the product, read lazily: filter it).
-- `blocked` is 'full', 'partial', 'none' or 'unknown'; `robots_status` is the robots.txt's status.
CREATE OR REPLACE VIEW agent_access AS
WITH cat AS (
  SELECT snapshot_date, user_agent, any_value(operator) AS operator, any_value(purpose) AS purpose FROM agents_catalogue GROUP BY ALL
)
SELECT s.snapshot_date, s.host, c.user_agent, c.operator, c.purpose,
       CASE WHEN s.blocked = 'unknown' THEN 'unknown' ELSE coalesce(o.blocked, s.blocked) END AS blocked,
       coalesce(o.via, s.via) AS via, s.robots_status
FROM agent_sites s
JOIN cat c ON c.snapshot_date = s.snapshot_date
LEFT JOIN robots_agent_access o ON o.snapshot_date = s.snapshot_date AND o.host = s.host AND o.user_agent = c.user_agent;

-- agent_access_shares: per night, agent, blocked level ('unknown' included) and way, the sites and
-- their share of the night's sites. Counted without the product: every agent starts from the '*'
-- rows' counts, and each site that names the agent moves from its '*' answer to its own.
CREATE OR REPLACE VIEW agent_access_shares AS
WITH cat AS (
  SELECT snapshot_date, user_agent, any_value(operator) AS operator, any_value(purpose) AS purpose FROM agents_catalogue GROUP BY ALL
), own AS (
  SELECT o.snapshot_date, o.user_agent, o.blocked, o.via, s.blocked AS star_blocked, s.via AS star_via
  FROM robots_agent_access o JOIN agent_sites s ON s.snapshot_date = o.snapshot_date AND s.host = o.host
  WHERE o.user_agent <> '*' AND s.blocked <> 'unknown'
), nights AS (
  SELECT snapshot_date, count(*) AS sites FROM agent_sites GROUP BY ALL
), counts AS (
  SELECT c.snapshot_date, c.user_agent, s.blocked, s.via, s.n
  FROM cat c JOIN (SELECT snapshot_date, blocked, via, count(*) AS n FROM agent_sites GROUP BY ALL) s ON s.snapshot_date = c.snapshot_date
  UNION ALL SELECT snapshot_date, user_agent, star_blocked, star_via, -count(*) FROM own GROUP BY ALL
  UNION ALL SELECT snapshot_date, user_agent, blocked, via, count(*) FROM own GROUP BY ALL
)
SELECT k.snapshot_date, k.user_agent, c.operator, c.purpose, k.blocked, k.via,
       sum(k.n) AS sites, sum(k.n) / any_value(t.sites) AS share
FROM counts k
JOIN cat c ON c.snapshot_date = k.snapshot_date AND c.user_agent = k.user_agent
JOIN nights t ON t.snapshot_date = k.snapshot_date
GROUP BY ALL
HAVING sum(k.n) > 0;

-- ai_crawler_blocking: one row per night and agent. share_full + share_partial + share_none +
-- share_unknown = 1 (unknown: robots.txt content not seen, see above). by_name = the site's own
-- group for the agent decided, through_star = the '*' groups did. share_unreachable: the sites
-- whose robots.txt a crawler must treat as disallowing everything (5xx, network: RFC 9309
-- §2.3.1.4; all of them 'unknown' here); share_absent: those a 4xx said have none (§2.3.1.3).
CREATE OR REPLACE VIEW ai_crawler_blocking AS
SELECT snapshot_date, user_agent, operator, purpose,
       sum(sites) AS sites,
       coalesce(sum(share) FILTER (WHERE blocked = 'full'), 0) AS share_full,
       coalesce(sum(share) FILTER (WHERE blocked = 'partial'), 0) AS share_partial,
       coalesce(sum(share) FILTER (WHERE blocked = 'none'), 0) AS share_none,
       coalesce(sum(share) FILTER (WHERE blocked = 'unknown'), 0) AS share_unknown,
       coalesce(sum(share) FILTER (WHERE blocked = 'full' AND via = 'own_group'), 0) AS share_full_by_name,
       coalesce(sum(share) FILTER (WHERE blocked = 'full' AND via = 'global_group'), 0) AS share_full_through_star,
       coalesce(sum(share) FILTER (WHERE blocked = 'partial' AND via = 'own_group'), 0) AS share_partial_by_name,
       coalesce(sum(share) FILTER (WHERE blocked = 'partial' AND via = 'global_group'), 0) AS share_partial_through_star,
       coalesce(sum(share) FILTER (WHERE via = 'unreachable'), 0) AS share_unreachable,
       coalesce(sum(share) FILTER (WHERE blocked = 'none' AND via = 'absent'), 0) AS share_absent
FROM agent_access_shares
GROUP BY ALL;

-- Roll-ups by purpose and by operator: per night and catalogue purpose (or operator), each listed
-- site's answer to the group's agents together: 'full' (every agent of the group blocked fully),
-- 'some_full' (some of them blocked fully, not all), 'partial' (none blocked fully, but some path
-- disallowed to some of them), 'none' (none restricted at all), 'unknown' (robots.txt content not
-- seen). share_full + share_some_full + share_partial + share_none + share_unknown = 1.
-- share_any_full = share_full + share_some_full: the sites blocking at least one agent of the
-- group fully (the opt-out a study counts as "blocks an AI crawler"); share_partial is a
-- restriction that is not an opt-out. `agents`: the group's catalogue agents.
-- Counted without the product, as agent_access_shares: a site that names none of the group's
-- agents answers them all with its '*' answer.
CREATE OR REPLACE MACRO adsnap_agent_rollup(by_operator) AS TABLE
WITH cat AS (
  SELECT snapshot_date, user_agent, any_value(grp) AS grp
  FROM (SELECT snapshot_date, user_agent, CASE WHEN by_operator THEN operator ELSE purpose END AS grp FROM agents_catalogue)
  GROUP BY ALL
), groups AS (
  SELECT snapshot_date, grp, count(*) AS agents FROM cat GROUP BY ALL
), own AS (
  -- Per site and group naming at least one of its agents: how many are named, fully blocked, unrestricted.
  SELECT s.snapshot_date, s.host, c.grp, s.blocked AS star_blocked, count(*) AS named,
         count(*) FILTER (WHERE o.blocked = 'full') AS named_full, count(*) FILTER (WHERE o.blocked = 'none') AS named_none
  FROM robots_agent_access o
  JOIN agent_sites s ON s.snapshot_date = o.snapshot_date AND s.host = o.host
  JOIN cat c ON c.snapshot_date = o.snapshot_date AND c.user_agent = o.user_agent
  WHERE o.user_agent <> '*' AND s.blocked <> 'unknown'
  GROUP BY ALL
), moved AS (
  SELECT o.snapshot_date, o.grp, o.star_blocked,
         o.named_full + CASE WHEN o.star_blocked = 'full' THEN g.agents - o.named ELSE 0 END AS n_full,
         o.named_none + CASE WHEN o.star_blocked = 'none' THEN g.agents - o.named ELSE 0 END AS n_none,
         g.agents
  FROM own o JOIN groups g ON g.snapshot_date = o.snapshot_date AND g.grp = o.grp
), counts AS (
  -- Every site starts at its '*' answer for every group (counted once per night, then per group).
  SELECT g.snapshot_date, g.grp, s.blocked AS level, s.blocked = 'full' AS any_full, s.n
  FROM groups g JOIN (SELECT snapshot_date, blocked, count(*) AS n FROM agent_sites GROUP BY ALL) s ON s.snapshot_date = g.snapshot_date
  UNION ALL SELECT snapshot_date, grp, star_blocked, star_blocked = 'full', -count(*) FROM moved GROUP BY ALL
  UNION ALL
  SELECT snapshot_date, grp, CASE WHEN n_full = agents THEN 'full' WHEN n_full > 0 THEN 'some_full' WHEN n_none = agents THEN 'none' ELSE 'partial' END,
         n_full > 0, count(*)
  FROM moved GROUP BY ALL
), nights AS (
  SELECT snapshot_date, count(*) AS sites FROM agent_sites GROUP BY ALL
)
SELECT k.snapshot_date, k.grp, any_value(g.agents) AS agents, any_value(t.sites) AS sites,
       coalesce(sum(k.n) FILTER (WHERE k.level = 'full'), 0) / any_value(t.sites) AS share_full,
       coalesce(sum(k.n) FILTER (WHERE k.level = 'some_full'), 0) / any_value(t.sites) AS share_some_full,
       coalesce(sum(k.n) FILTER (WHERE k.level = 'partial'), 0) / any_value(t.sites) AS share_partial,
       coalesce(sum(k.n) FILTER (WHERE k.level = 'none'), 0) / any_value(t.sites) AS share_none,
       coalesce(sum(k.n) FILTER (WHERE k.level = 'unknown'), 0) / any_value(t.sites) AS share_unknown,
       coalesce(sum(k.n) FILTER (WHERE k.any_full), 0) / any_value(t.sites) AS share_any_full
FROM counts k
JOIN groups g ON g.snapshot_date = k.snapshot_date AND g.grp = k.grp
JOIN nights t ON t.snapshot_date = k.snapshot_date
GROUP BY k.snapshot_date, k.grp;

-- ai_crawler_blocking_by_purpose: the roll-up (above) by the catalogue's purpose.
CREATE OR REPLACE VIEW ai_crawler_blocking_by_purpose AS
SELECT snapshot_date, grp AS purpose, agents, sites, share_full, share_some_full, share_partial, share_none, share_unknown, share_any_full
FROM adsnap_agent_rollup(false);

-- ai_crawler_blocking_by_operator: the roll-up (above) by the catalogue's operator.
CREATE OR REPLACE VIEW ai_crawler_blocking_by_operator AS
SELECT snapshot_date, grp AS operator, agents, sites, share_full, share_some_full, share_partial, share_none, share_unknown, share_any_full
FROM adsnap_agent_rollup(true);

-- --- Consent signals beyond robots.txt (docs/reference/ai-signals.md) ---
CREATE OR REPLACE VIEW robots_licenses AS SELECT * EXCLUDE (filename) FROM read_parquet(list_transform(adsnap_roots(), r -> r || '/robots_licenses/*/*.parquet'), hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('robots_licenses'));
CREATE OR REPLACE VIEW tdmrep_rules AS SELECT * EXCLUDE (filename) FROM read_parquet(list_transform(adsnap_roots(), r -> r || '/tdmrep_rules/*/*.parquet'), hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('tdmrep_rules'));
CREATE OR REPLACE VIEW rsl_licenses AS SELECT * EXCLUDE (filename) FROM read_parquet(list_transform(adsnap_roots(), r -> r || '/rsl_licenses/*/*.parquet'), hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('rsl_licenses'));
CREATE OR REPLACE VIEW llms_txt AS SELECT * EXCLUDE (filename) FROM read_parquet(list_transform(adsnap_roots(), r -> r || '/llms_txt/*/*.parquet'), hive_partitioning = true, union_by_name = true, filename = true)
  WHERE filename IN (SELECT file FROM adsnap_parts('llms_txt'));

-- site_ai_consent: one row per night and listed site, every consent signal side by side.
-- ai_agents_blocked_by_name: catalogue agents whose purpose is training, data, assistant or agent
--   that the site's own group for them blocks fully; null when the robots.txt content was not seen
--   (agent_sites.blocked 'unknown': a wall, a 429, a 5xx, a network failure).
-- content_signal_ai_train: the first Content-Signal ai-train value ('yes'/'no') of the '*' group
--   (or outside any group); null when none.
-- tdm_reservation / tdm_policy: the first tdmrep.json rule whose location matches '/' (TDMRep:
--   "the first in sequence"), else a tdm-reservation header on any response of the site that night,
--   or on the earlier answer a file not fetched anew that night was read from (1 when any said 1);
--   null when nothing said. Headers speak for the resource they came with
--   (robots.txt, ads.txt): the well-known file is the site-wide word, so it ranks first here.
-- rsl_license_url: the first robots.txt License line (resolved). llms_txt: a Markdown llms.txt was
--   served (true), asked and not (false), not asked (null: a night without --ai-signals).
-- Sites by combination of signals: docs/reference/ai-signals.md.
CREATE OR REPLACE VIEW site_ai_consent AS
WITH sites AS (
  SELECT DISTINCT snapshot_date, target AS host FROM targets WHERE target_kind = 'domain'
), ai AS (
  SELECT DISTINCT snapshot_date, user_agent FROM agents_catalogue WHERE purpose IN ('training', 'data', 'assistant', 'agent')
), star AS (
  SELECT snapshot_date, host, blocked FROM agent_sites
), named AS (
  SELECT a.snapshot_date, a.host, count(*) AS n FROM robots_agent_access a
  SEMI JOIN ai ON ai.snapshot_date = a.snapshot_date AND ai.user_agent = a.user_agent
  WHERE a.blocked = 'full' AND a.via = 'own_group'
  GROUP BY ALL
), signal AS (
  SELECT snapshot_date, host, arg_min(lower(value), line_no) AS ai_train FROM robots_usage_signals
  WHERE directive = 'content-signal' AND key = 'ai-train' AND (group_no IS NULL OR list_contains(user_agents, '*'))
  GROUP BY ALL
), rule AS (
  SELECT snapshot_date, host, arg_min(tdm_reservation, rule_no) AS reservation, arg_min(tdm_policy, rule_no) AS policy
  FROM tdmrep_rules WHERE matches_root GROUP BY ALL
), tdm_answers AS (
  SELECT snapshot_date, subject, final_url, trim(tdm_reservation) AS r, tdm_policy FROM fetches WHERE trim(tdm_reservation) IN ('0', '1')
), tdm_heard AS (
  SELECT snapshot_date, subject, r, tdm_policy FROM tdm_answers
  UNION ALL
  -- A file not fetched anew that night (a 304, a fresh copy reused, a copy carried forward) keeps
  -- the headers of the answer its copy came from: RFC 9111 §4.3.4, a 304 updates stored headers,
  -- it does not drop them (most servers do not repeat a custom header on a 304).
  SELECT f.snapshot_date, f.subject, a.r, a.tdm_policy FROM files f
  ASOF JOIN tdm_answers a ON a.subject = f.subject AND a.final_url = f.url AND f.snapshot_date > a.snapshot_date
  WHERE f.obtained IN ('revalidated', 'reused', 'carried_forward')
), header AS (
  SELECT snapshot_date, subject AS host, max(CAST(r AS INTEGER)) AS reservation,
         max(tdm_policy) FILTER (WHERE r = '1') AS policy_1, max(tdm_policy) FILTER (WHERE r = '0') AS policy_0
  FROM tdm_heard GROUP BY ALL
), licence AS (
  SELECT snapshot_date, host, arg_min(coalesce(resolved_url, url), line_no) AS url FROM robots_licenses GROUP BY ALL
), llms AS (
  SELECT snapshot_date, subject AS host, bool_or(valid) AS served FROM files WHERE file_kind = 'llms.txt' GROUP BY ALL
)
SELECT s.snapshot_date, s.host,
       CASE WHEN st.blocked <> 'unknown' THEN CAST(coalesce(n.n, 0) AS INTEGER) END AS ai_agents_blocked_by_name,
       sg.ai_train AS content_signal_ai_train,
       CAST(coalesce(r.reservation, h.reservation) AS INTEGER) AS tdm_reservation,
       CASE WHEN r.reservation IS NOT NULL THEN r.policy WHEN h.reservation = 1 THEN h.policy_1 WHEN h.reservation = 0 THEN h.policy_0 END AS tdm_policy,
       l.url AS rsl_license_url,
       m.served AS llms_txt
FROM sites s
LEFT JOIN star st ON st.snapshot_date = s.snapshot_date AND st.host = s.host
LEFT JOIN named n ON n.snapshot_date = s.snapshot_date AND n.host = s.host
LEFT JOIN signal sg ON sg.snapshot_date = s.snapshot_date AND sg.host = s.host
LEFT JOIN rule r ON r.snapshot_date = s.snapshot_date AND r.host = s.host
LEFT JOIN header h ON h.snapshot_date = s.snapshot_date AND h.host = s.host
LEFT JOIN licence l ON l.snapshot_date = s.snapshot_date AND l.host = s.host
LEFT JOIN llms m ON m.snapshot_date = s.snapshot_date AND m.host = s.host;
-- --- end of consent signals ---

-- buyers.json (IAB Tech Lab buyers.json 1.0) per night and ad system asked: whether it publishes
-- one (`publishes`: a buyers array read whole, files.valid), its status, the entries read, and
-- the entries per buyer_type as written (`buyer_types`: a map type → entries; '(none)' for
-- entries without one). Ad systems are those named by a kept record (the sellers phase's round 0).
CREATE OR REPLACE VIEW ad_system_buyers AS
WITH types AS (
  SELECT snapshot_date, ad_system_domain, map_from_entries(list({'k': t, 'v': n} ORDER BY n DESC, t)) AS buyer_types
  FROM (SELECT snapshot_date, ad_system_domain, coalesce(buyer_type, '(none)') AS t, count(*)::INTEGER AS n FROM buyers GROUP BY ALL)
  GROUP BY ALL
)
SELECT f.snapshot_date, f.subject AS ad_system_domain, f.status AS buyers_json_status, coalesce(f.valid, false) AS publishes,
       coalesce(bf.buyers, 0) AS buyers, t.buyer_types, bf.version, bf.contact_email
FROM files f
LEFT JOIN buyers_files bf ON bf.snapshot_date = f.snapshot_date AND bf.ad_system_domain = f.subject
LEFT JOIN types t ON t.snapshot_date = f.snapshot_date AND t.ad_system_domain = f.subject
WHERE f.file_kind = 'buyers.json';
