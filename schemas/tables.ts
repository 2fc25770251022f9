/**
 * The one source of truth for every output table (contract §3). The Parquet writer, the row
 * builders, the DuckDB read-back tests and docs/reference/tables.md (npm run docs) are all driven
 * by this file. Add columns freely; never rename or re-mean one (the contract is public).
 *
 * Types map to Parquet as follows:
 *   string    → BYTE_ARRAY (STRING)                 int32  → INT32
 *   int64     → INT64                               bool   → BOOLEAN
 *   double    → DOUBLE                              timestamp → INT64 TIMESTAMP(MICROS, UTC)
 *   string[]  → LIST<STRING>
 * Every column is nullable unless `nullable: false`. `dict: true` marks low-cardinality
 * columns that should be dictionary-encoded.
 */
export type ColumnType = 'string' | 'int32' | 'int64' | 'bool' | 'double' | 'timestamp' | 'string[]';

export interface Column {
  readonly name: string;
  readonly type: ColumnType;
  readonly nullable?: boolean;
  readonly dict?: boolean;
  readonly doc: string;
}

export interface TableSchema {
  readonly name: string;
  readonly grain: string;
  readonly columns: readonly Column[];
}

// Generic so that each column keeps its literal name, type and nullability: Row<N> below is
// derived from them.
const c = <const N extends string, const T extends ColumnType, const E extends { nullable?: boolean; dict?: boolean } = {}>(
  name: N,
  type: T,
  doc: string,
  extra?: E,
): { name: N; type: T; doc: string } & E => ({ name, type, doc, ...(extra ?? ({} as E)) });

/**
 * `files.status`: what the content was, the same on every night however it was obtained
 * (contract §3). A closed list: every place that decides a status uses this type.
 */
export const FILE_STATUSES = [
  'ok',
  'placeholder',
  'empty',
  'html',
  'invalid_content_type',
  'too_large',
  'not_found',
  'unauthorized',
  'blocked',
  'rate_limited',
  'http_error',
  'redirect_error',
  'unreachable',
  'disallowed_by_robots',
  'invalid_json',
  'not_sellers_json',
  'not_buyers_json',
  'payment_required',
] as const;
export type FileStatus = (typeof FILE_STATUSES)[number];

/**
 * `files.obtained`: how the content was obtained. `fetched`: today's request answered (whatever
 * the answer); `revalidated`: a conditional request answered 304 and the earlier copy was
 * re-read; `reused`: an earlier copy still fresh, no request (only with --reuse-fresh);
 * `carried_forward`: today's request failed and the earlier copy stands (ads.txt 1.1 §3.1).
 */
export const OBTAINED = ['fetched', 'revalidated', 'reused', 'carried_forward'] as const;
export type Obtained = (typeof OBTAINED)[number];

/** The parent object's fields of sellers.json 1.0, which buyers.json 1.0 shares: sellers_files and buyers_files. */
const JSON_FILE_HEADER = [
  c('version', 'string', 'version, as written'),
  c('contact_email', 'string', 'contact_email'),
  c('contact_address', 'string', 'contact_address'),
  c('identifier_names', 'string[]', 'identifiers[].name (e.g. TAG-ID, DUNS), aligned by position with identifier_values; at most 1,000'),
  c('identifier_values', 'string[]', 'identifiers[].value, aligned by position with identifier_names'),
  c('ext', 'string', 'the top-level ext object as JSON text, null when absent'),
] as const;

export const tables = {
  targets: {
    name: 'targets',
    grain: 'input line accepted',
    columns: [
      c('target', 'string', 'root domain (PSL+1, punycode) or app key', { nullable: false }),
      c('target_kind', 'string', "'domain' or 'app'", { nullable: false, dict: true }),
      c('rank', 'int32', 'rank from the list (Tranco rank column, or line order when absent), null if unknown'),
      c('source', 'string', 'input file name', { dict: true }),
      c('input_line', 'int64', '1-based line number in the input file'),
      c('input_text', 'string', 'the input value as written (URL, www. host, …) before normalisation'),
    ],
  },
  fetches: {
    name: 'fetches',
    grain: 'HTTP request made',
    columns: [
      c('url', 'string', 'requested URL', { nullable: false }),
      c('host', 'string', 'host of the requested URL'),
      c('subject', 'string', 'subject the request was made for'),
      c('file_kind', 'string', "'ads.txt', 'app-ads.txt', 'robots.txt', 'sellers.json', 'buyers.json', 'store_page', or with --ai-signals 'tdmrep.json', 'llms.txt', 'rsl', 'home_page' (the site's /, its head only)", { dict: true }),
      c('status_code', 'int32', 'final HTTP status, null when no HTTP answer'),
      c('final_url', 'string', 'URL of the last response in the redirect chain'),
      c('redirects', 'string[]', 'redirect chain: every URL redirected to, in order'),
      c('content_type', 'string', 'Content-Type header of the final response', { dict: true }),
      c('bytes', 'int64', 'body bytes read, after decompression'),
      c('truncated', 'bool', 'body was cut at the byte cap'),
      c('sha256', 'string', 'hex sha256 of the body bytes read'),
      c('etag', 'string', 'ETag validator'),
      c('last_modified', 'string', 'Last-Modified validator'),
      c('error', 'string', 'stable error code (dns_nxdomain, dns_servfail, dns_refused, dns_timeout, dns_no_address, or dns when nothing finer is known; connect, tls, timeout, reset, too_large, redirect_loop, redirect_scope, blocked_address, challenge (a bot wall), …) or null', { dict: true }),
      c('remote_ip', 'string', 'address connected to'),
      c('attempts', 'int32', 'tries made (1 + retries)'),
      c('started_at', 'timestamp', 'when the request started (UTC)'),
      c('duration_ms', 'int32', 'wall time of the whole request, redirects and body included'),
      c('tdm_reservation', 'string', "the last response's tdm-reservation header as served (TDMRep §3.2: '1' reserves text and data mining rights, '0' does not), null when absent", { dict: true }),
      c('tdm_policy', 'string', "the last response's tdm-policy header as served (TDMRep §3.2: URL of the TDM policy), null when absent"),
      c('x_robots_tag', 'string[]', "the last response's X-Robots-Tag header fields as served, one element per field (Google's robots meta specification: directives, optionally after 'agent:'), empty when absent"),
      c('content_usage', 'string', "the last response's Content-Usage header as served (draft-ietf-aipref-attach-05 §4: usage preferences for the resource), null when absent"),
      c('link', 'string', "the last response's Link header as served (RFC 8288; RSL 1.0 names a licence with rel=\"license\"), null when absent"),
      c('crawler_price', 'string', "the last response's crawler-price header as served (Cloudflare pay per crawl: the price a 402 Payment Required asks; nothing is paid), null when absent"),
    ],
  },
  files: {
    name: 'files',
    grain: '(subject, file_kind) resolved',
    columns: [
      c('subject', 'string', 'host the file is authoritative for', { nullable: false }),
      c('file_kind', 'string', 'ads.txt, app-ads.txt, robots.txt, sellers.json or buyers.json; with --ai-signals also tdmrep.json, llms.txt, rsl (an RSL licence), home_page (the page at /, read up to the end of its head)', { nullable: false, dict: true }),
      c('via', 'string', "'root', 'subdomain', 'inventorypartnerdomain', 'developer_url' (a developer host, however apps reached it: each app's path, direct or 'developer_url_parent', is its hops row), 'ad_system', 'intermediary' (a sellers.json reached through an INTERMEDIARY/BOTH entry, not itself an ad system named by a record)", { dict: true }),
      c('url', 'string', 'URL whose body was used (after redirects), null if none'),
      c('status', 'string', `what the content was, on every night however it was obtained: ${FILE_STATUSES.join(', ')}`, { dict: true }),
      c('obtained', 'string', `how the content was obtained: ${OBTAINED.join(', ')}; null for an older snapshot`, { dict: true }),
      c('http_status', 'int32', 'HTTP status of the answer used'),
      c('valid', 'bool', 'the body is a spec-valid declaration usable by a buyer'),
      c('robots_allowed', 'bool', "robots.txt verdict for adsnap on this URL, null if unknown"),
      c('records', 'int32', 'data records kept'),
      c('variables', 'int32', 'variable lines'),
      c('errors', 'int32', 'error issues'),
      c('warnings', 'int32', 'warning issues'),
      c('bytes', 'int64', 'body bytes'),
      c('sha256', 'string', 'hex sha256 of the body'),
      c('content_type', 'string', 'Content-Type of the answer used', { dict: true }),
      c('fetched_at', 'timestamp', 'when the body was fetched, or revalidated (304); for reused / carried_forward, when the earlier copy was'),
      c('age_days', 'double', 'age in days of an earlier copy reused without revalidation (reused / carried_forward), else null'),
      c('etag', 'string', 'ETag of the answer used (validator for the next snapshot)'),
      c('last_modified', 'string', 'Last-Modified of the answer used (validator for the next snapshot)'),
      c('fresh_until', 'timestamp', 'until when the data may be reused without refetching (ads.txt 1.1 §3.6 Cache-Control/Expires or 7 days; robots.txt at most 24 h, RFC 9309 §2.4)'),
      c('lines', 'int32', 'physical lines of a text body (ads.txt, app-ads.txt, robots.txt): CR, LF and CRLF each end one, a final line without a line end counts; null for sellers.json and when no body was read'),
    ],
  },
  ads_records: {
    name: 'ads_records',
    grain: 'data record kept',
    columns: [
      c('subject', 'string', 'host the file is authoritative for', { nullable: false }),
      c('file_kind', 'string', 'ads.txt or app-ads.txt', { nullable: false, dict: true }),
      c('line_no', 'int32', '1-based line number', { nullable: false }),
      c('ad_system_domain', 'string', 'field 1, lower-cased', { nullable: false }),
      c('seller_account_id', 'string', 'field 2', { nullable: false }),
      c('relationship', 'string', 'field 3, upper-cased (DIRECT, RESELLER, or other kept with a warning)', { nullable: false, dict: true }),
      c('cert_authority_id', 'string', 'field 4, null when absent'),
      c('extension', 'string', 'text after the first ";", null when absent'),
    ],
  },
  ads_variables: {
    name: 'ads_variables',
    grain: 'variable line',
    columns: [
      c('subject', 'string', 'host the file is authoritative for', { nullable: false }),
      c('file_kind', 'string', 'ads.txt or app-ads.txt', { nullable: false, dict: true }),
      c('line_no', 'int32', '1-based line number', { nullable: false }),
      c('name', 'string', 'variable name, upper-cased', { nullable: false, dict: true }),
      c('value', 'string', 'value, trimmed', { nullable: false }),
      c('value_domain', 'string', 'lower-cased domain for SUBDOMAIN, INVENTORYPARTNERDOMAIN, OWNERDOMAIN, MANAGERDOMAIN'),
      c('value_country', 'string', 'ISO 3166-1 alpha-2 country of a MANAGERDOMAIN', { dict: true }),
    ],
  },
  parse_issues: {
    name: 'parse_issues',
    grain: 'issue found',
    columns: [
      c('subject', 'string', 'host (or ad system domain) of the file', { nullable: false }),
      c('file_kind', 'string', 'kind of file', { nullable: false, dict: true }),
      c('line_no', 'int32', '1-based line number, null for file-level issues'),
      c('severity', 'string', "'error', 'warning' or 'info'", { nullable: false, dict: true }),
      c('code', 'string', 'stable issue code (docs/reference/parse-issues.md)', { nullable: false, dict: true }),
      c('message', 'string', 'human-readable explanation'),
      c('line_text', 'string', 'the offending line, at most 256 characters'),
    ],
  },
  hops: {
    name: 'hops',
    grain: 'referral seen',
    columns: [
      c('from_subject', 'string', 'subject whose file declared the referral', { nullable: false }),
      c('from_file_kind', 'string', 'kind of the declaring file', { nullable: false, dict: true }),
      c('kind', 'string', "'subdomain', 'inventorypartnerdomain', 'developer_url', 'developer_url_parent'", { nullable: false, dict: true }),
      c('to_subject', 'string', 'subject referred to', { nullable: false }),
      c('outcome', 'string', "'followed' or 'ignored'", { nullable: false, dict: true }),
      c('reason', 'string', 'why ignored, null when followed', { dict: true }),
      c('line_no', 'int32', 'line of the declaring variable, null for developer-URL hops'),
    ],
  },
  robots_rules: {
    name: 'robots_rules',
    grain: 'rule line per user agent',
    columns: [
      c('host', 'string', 'host the robots.txt was fetched for', { nullable: false }),
      c('group_no', 'int32', '1-based group number in file order', { nullable: false }),
      c('user_agent', 'string', 'user-agent value of the group, as written', { nullable: false }),
      c('directive', 'string', "'allow' or 'disallow'", { nullable: false, dict: true }),
      c('path', 'string', 'path pattern as written', { nullable: false }),
      c('line_no', 'int32', '1-based line number', { nullable: false }),
    ],
  },
  robots_sitemaps: {
    name: 'robots_sitemaps',
    grain: 'sitemap line',
    columns: [
      c('host', 'string', 'host the robots.txt was fetched for', { nullable: false }),
      c('url', 'string', 'sitemap URL as written', { nullable: false }),
      c('line_no', 'int32', '1-based line number', { nullable: false }),
    ],
  },
  robots_verdicts: {
    name: 'robots_verdicts',
    grain: '(host, agent, path) checked',
    columns: [
      c('host', 'string', 'host the robots.txt was fetched for', { nullable: false }),
      c('user_agent', 'string', 'product token checked', { nullable: false, dict: true }),
      c('path', 'string', 'path checked', { nullable: false, dict: true }),
      c('allowed', 'bool', 'verdict in the reading named by semantics (RFC 9309 unless the crawl chose google)', { nullable: false }),
      c('matched_line', 'int32', 'line of the deciding rule, null when no rule matched'),
      c('policy', 'string', "'rules', 'allow_all' or 'disallow_all' (RFC 9309 §2.3.1 access result)", { dict: true }),
      c('semantics', 'string', "reading of robots.txt the verdict follows: 'rfc' (RFC 9309) or 'google' (Google's reference matcher); crawl --robots-semantics, docs/reference/robots-semantics.md; null in snapshots written before the column", { dict: true }),
    ],
  },
  robots_agent_access: {
    name: 'robots_agent_access',
    grain: "host × ('*' and each catalogue agent a group of its robots.txt names)",
    columns: [
      c('host', 'string', 'host the robots.txt was fetched for', { nullable: false }),
      c('user_agent', 'string', "catalogue product token a group names, or '*': the answer of every catalogue agent no group names", { nullable: false, dict: true }),
      c('blocked', 'string', "'full' (a catch-all disallow applies and no allow rule as long), 'partial' (some other disallow rule applies) or 'none': what a crawler must do (RFC 9309 §2.3.1); the views give a robots.txt whose content was not seen the level 'unknown' (docs/reference/ai-crawlers.md)", { nullable: false, dict: true }),
      c('via', 'string', "'own_group', 'global_group' (the * groups), 'no_group', 'unreachable' (5xx/network: disallow all, RFC 9309 §2.3.1.4) or 'absent' (4xx: allow all, §2.3.1.3)", { nullable: false, dict: true }),
      c('group_line', 'int32', 'line of the first user-agent line of the groups that apply, null when none applies'),
    ],
  },
  robots_usage_signals: {
    name: 'robots_usage_signals',
    grain: 'key of a Content-Signal or Content-Usage line of a robots.txt',
    columns: [
      c('host', 'string', 'host the robots.txt was fetched for', { nullable: false }),
      c('directive', 'string', "'content-signal' (Cloudflare Content Signals) or 'content-usage' (draft-ietf-aipref-attach)", { nullable: false, dict: true }),
      c('group_no', 'int32', 'group the line stands in, null before the first user-agent line'),
      c('user_agents', 'string[]', "that group's user-agent values as written (empty without a group)"),
      c('path', 'string', 'Content-Usage path pattern, null when the line has none (the whole site)'),
      c('key', 'string', 'lower-cased key (search, ai-input, ai-train; train-ai, search, …)', { nullable: false, dict: true }),
      c('value', 'string', "value as written (yes/no; y/n; '?1' for a bare key)", { nullable: false, dict: true }),
      c('line_no', 'int32', '1-based line number', { nullable: false }),
    ],
  },
  robots_managed_blocks: {
    name: 'robots_managed_blocks',
    grain: "block of a robots.txt written by a known generator, between its marker comments (docs/reference/ai-crawlers.md#who-wrote-the-block)",
    columns: [
      c('host', 'string', 'host the robots.txt was fetched for', { nullable: false }),
      c('managed_by', 'string', "the generator: 'cloudflare' (Cloudflare's managed robots.txt), 'yoast' (Yoast SEO)", { nullable: false, dict: true }),
      c('begin_line', 'int32', 'line of the opening marker', { nullable: false }),
      c('end_line', 'int32', 'line of the closing marker, null when the file ends first'),
    ],
  },
  // --- Consent signals beyond robots.txt (docs/reference/ai-signals.md) ---
  robots_licenses: {
    name: 'robots_licenses',
    grain: 'License line of a robots.txt (RSL 1.0: the URL of the site licence)',
    columns: [
      c('host', 'string', 'host the robots.txt was fetched for', { nullable: false }),
      c('url', 'string', 'the value as written', { nullable: false }),
      c('resolved_url', 'string', "the value resolved against the robots.txt's URL, null when it is no http(s) URL"),
      c('same_host', 'bool', 'the licence is on the host itself (only such a licence is fetched, with --ai-signals)', { nullable: false }),
      c('line_no', 'int32', '1-based line number', { nullable: false }),
    ],
  },
  tdmrep_rules: {
    name: 'tdmrep_rules',
    grain: 'rule of a /.well-known/tdmrep.json (W3C TDMRep, Final Community Group Report 2024-05-10)',
    columns: [
      c('host', 'string', 'host the file was fetched for', { nullable: false }),
      c('rule_no', 'int32', '1-based position in the array (TDMRep: the first rule that matches a path decides)', { nullable: false }),
      c('location', 'string', 'the location pattern as written (robots.txt syntax: * and $), null when missing'),
      c('tdm_reservation', 'int32', '1 (rights reserved) or 0 (not reserved); null when missing or not 0/1 (an issue row says which)'),
      c('tdm_policy', 'string', 'the tdm-policy URL as written, null when absent'),
      c('matches_root', 'bool', "the location matches the path '/' (RFC 9309 matching), so the rule speaks for the site's home page", { nullable: false }),
    ],
  },
  rsl_licenses: {
    name: 'rsl_licenses',
    grain: '<license> of a <content> element of an RSL licence (RSL 1.0)',
    columns: [
      c('host', 'string', 'site whose robots.txt License line named the file', { nullable: false }),
      c('url', 'string', 'URL the licence was read from', { nullable: false }),
      c('content_no', 'int32', '1-based position of the <content> element', { nullable: false }),
      c('content_url', 'string', "the <content url> attribute as written (a URL or a robots.txt path pattern)"),
      c('license_no', 'int32', '1-based position of the <license> in its <content>; null for a <content> without one', {}),
      c('permits', 'string[]', "what <permits> elements allow, each 'type:value' ('usage:ai-train', 'user:commercial', 'geo:US'); values split on spaces and commas"),
      c('prohibits', 'string[]', "what <prohibits> elements forbid, each 'type:value'"),
      c('payment_type', 'string', "the <payment type> attribute as written (free when the element has no type), null without <payment>", { dict: true }),
    ],
  },
  llms_txt: {
    name: 'llms_txt',
    grain: 'llms.txt read (the llms.txt proposal, llmstxt.org, 2024-09-03)',
    columns: [
      c('host', 'string', 'host the file was fetched for', { nullable: false }),
      c('markdown', 'bool', 'the body is Markdown that opens with the H1 title the proposal requires (not an HTML page)', { nullable: false }),
      c('title', 'string', 'text of the first H1 heading, null when none'),
      c('summary', 'string', 'the blockquote after the title (at most 256 characters), null when none'),
      c('sections', 'int32', 'H2 headings (the file-list sections)', { nullable: false }),
      c('links', 'int32', 'links written in Markdown link syntax, outside fenced code', { nullable: false }),
      c('bytes', 'int64', 'body bytes', { nullable: false }),
    ],
  },
  page_heads: {
    name: 'page_heads',
    grain: "home page (/) whose head was read (crawl --ai-signals): its head's and its answer's usage signals",
    columns: [
      c('host', 'string', 'listed site', { nullable: false }),
      c('url', 'string', 'URL the head was read from (after redirects)'),
      c('head', 'string', "how the reading ended: 'closed' (</head>), 'body' (a start tag that opens the body), 'unclosed' (the page ended first: read whole), 'cut' (still open at the byte cap: what follows was not read)", { nullable: false, dict: true }),
      c('noai', 'bool', "a robots meta tag (name=robots) or an X-Robots-Tag field addressed to every agent says noai; false when none does and the head was read to its end; null when it was cut and nothing said so", {}),
      c('noimageai', 'bool', 'the same for noimageai', {}),
      c('content_usage', 'string', 'the Content-Usage header as sent (draft-ietf-aipref-attach-05 §4), null when absent', {}),
      c('tdm_reservation', 'string', "TDMRep: the <meta name=tdm-reservation> content as written, else the answer's tdm-reservation header (the meta supersedes the header: TDMRep, \"Processing priority\"); null when neither", { dict: true }),
      c('tdm_policy', 'string', 'the tdm-policy from the same place as tdm_reservation'),
      c('tdm_from', 'string', "'meta' or 'header': where tdm_reservation came from", { dict: true }),
      c('rsl_license_url', 'string', 'the first <link rel=license type=application/rsl+xml> href resolved against the page URL, else the first Link header rel=license (RSL 1.0); null when none or not a URL'),
      c('rsl_license_from', 'string', "'link' (the head) or 'header' (a Link header)", { dict: true }),
      c('directives', 'int32', 'page_directives rows of this page', { nullable: false }),
    ],
  },
  page_directives: {
    name: 'page_directives',
    grain: 'directive of a robots meta tag, an X-Robots-Tag field or the Content-Usage header of a home page (crawl --ai-signals)',
    columns: [
      c('host', 'string', 'listed site', { nullable: false }),
      c('no', 'int32', '1-based position in the page: meta tags in document order, then X-Robots-Tag fields, then Content-Usage', { nullable: false }),
      c('source', 'string', "'meta', 'x-robots-tag' or 'content-usage'", { nullable: false, dict: true }),
      c('user_agent', 'string', "'*' when addressed to every agent (name=robots; a field without 'agent:'), else the agent named, lower-cased", { nullable: false, dict: true }),
      c('directive', 'string', 'lower-cased directive as written (noai, noimageai, noindex, max-snippet, …) or Content-Usage key (train-ai, search, …)', { nullable: false, dict: true }),
      c('value', 'string', "the value after ':' (max-snippet: 20) or '=' (train-ai=n), as written; null for a bare directive", { dict: true }),
    ],
  },
  // --- end of consent signals ---
  agents_catalogue: {
    name: 'agents_catalogue',
    grain: 'catalogue agent, once per run (the catalogue the night used)',
    columns: [
      c('user_agent', 'string', 'product token', { nullable: false }),
      c('operator', 'string', 'who runs the crawler', { dict: true }),
      c('purpose', 'string', "'training', 'search', 'assistant', 'agent', 'data' or 'ads'", { dict: true }),
      c('catalogue_version', 'string', 'the catalogue file version', { dict: true }),
      c('catalogue_date', 'string', 'the catalogue file date (YYYY-MM-DD)', { dict: true }),
      c('catalogue_sha256', 'string', 'SHA-256 of the catalogue file', { dict: true }),
      c('fetches_pages', 'bool', 'false for a token that only carries a preference and fetches nothing (Google-Extended, Applebot-Extended); true for a crawler; null when the catalogue does not say', {}),
      c('controls', 'string[]', "what a disallow of it controls as its operator documents it: training, grounding, search_answers, user_fetches; null when not documented"),
      c('controls_source', 'string', 'URL of the operator document that fetches_pages and controls come from', { dict: true }),
    ],
  },
  apps: {
    name: 'apps',
    grain: 'app input',
    columns: [
      c('store', 'string', "store name: 'google_play', 'apple', 'roku', 'amazon', 'samsung', … or 'other'", { dict: true }),
      c('store_url', 'string', 'store URL as given', { nullable: false }),
      c('bundle_id', 'string', 'bundle / package id'),
      c('store_id', 'string', 'store id'),
      c('developer_url', 'string', 'developer website URL'),
      c('developer_url_source', 'string', "where developer_url came from: 'input', 'meta', 'page_link', …", { dict: true }),
      c('subject', 'string', 'host whose app-ads.txt was used, null if none'),
      c('status', 'string', 'outcome for the app: files.status of the app-ads.txt used (what it contained), or a store-level status (store_not_found, store_unreachable, disallowed_by_robots, no_developer_url, not_participating, invalid_developer_url, …)', { dict: true }),
    ],
  },
  sellers: {
    name: 'sellers',
    grain: 'seller entry',
    columns: [
      c('ad_system_domain', 'string', 'ad system whose sellers.json this is', { nullable: false }),
      c('seller_id', 'string', 'seller_id'),
      c('seller_type', 'string', "PUBLISHER, INTERMEDIARY or BOTH (upper-cased)", { dict: true }),
      c('name', 'string', 'name'),
      c('domain', 'string', 'domain, lower-cased'),
      c('is_confidential', 'bool', 'is_confidential'),
      c('is_passthrough', 'bool', 'is_passthrough'),
      c('comment', 'string', 'comment'),
    ],
  },
  sellers_files: {
    name: 'sellers_files',
    grain: 'sellers.json read (its header, IAB sellers.json 1.0)',
    columns: [
      c('ad_system_domain', 'string', 'ad system whose sellers.json this is', { nullable: false }),
      c('status', 'string', 'files.status of this sellers.json (what the content was)', { dict: true }),
      c('location', 'string', "where the file was asked: 'spec' (https://AD_SYSTEM/sellers.json, redirects followed) or 'table' (an entry of data/sellers-locations.tsv or --sellers-location, asked because the spec's location gave no readable file); null from adsnap reparse", { dict: true }),
      c('location_url', 'string', 'the URL asked (before redirects; files.url is the one read)'),
      ...JSON_FILE_HEADER,
      c('sellers', 'int32', 'entries read'),
    ],
  },
  buyers: {
    name: 'buyers',
    grain: 'buyer entry of an ad system\'s buyers.json (IAB Tech Lab buyers.json 1.0)',
    columns: [
      c('ad_system_domain', 'string', 'ad system whose buyers.json this is', { nullable: false }),
      c('buyer_id', 'string', 'buyer_id (the seat id in bid responses), trimmed'),
      c('buyer_type', 'string', 'buyer_type as written, trimmed (null when absent)', { dict: true }),
      c('name', 'string', 'name'),
      c('domain', 'string', 'domain, lower-cased'),
      c('is_confidential', 'bool', 'is_confidential'),
      c('comment', 'string', 'comment'),
    ],
  },
  buyers_files: {
    name: 'buyers_files',
    grain: 'buyers.json read (its header)',
    columns: [
      c('ad_system_domain', 'string', 'ad system whose buyers.json this is', { nullable: false }),
      c('status', 'string', 'files.status of this buyers.json (what the content was)', { dict: true }),
      ...JSON_FILE_HEADER,
      c('buyers', 'int32', 'entries read'),
    ],
  },
} as const satisfies Record<string, TableSchema>;

export type TableName = keyof typeof tables;
export const tableNames = Object.keys(tables) as TableName[];

type JsOf<T extends ColumnType> = T extends 'string'
  ? string
  : T extends 'int32' | 'double'
    ? number
    : T extends 'int64'
      ? number | bigint
      : T extends 'bool'
        ? boolean
        : T extends 'timestamp'
          ? Date
          : T extends 'string[]'
            ? string[]
            : never;

type ColumnsOf<N extends TableName> = (typeof tables)[N]['columns'][number];

/** The row type of a table, derived from its schema: nullable columns accept null. */
export type Row<N extends TableName> = {
  [C in ColumnsOf<N> as C['name']]: C extends { nullable: false } ? JsOf<C['type']> : JsOf<C['type']> | null;
};
