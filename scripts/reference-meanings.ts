/**
 * What the generated reference pages say about codes whose source lists carry no meaning of
 * their own: sellers.json and robots.txt issue codes, file statuses and how a file was
 * obtained. The codes themselves come from the source (scripts/gen-reference.ts); a code
 * without an entry here is still listed, marked "not described yet", so a new code never
 * breaks the build, but shows up in review.
 */

export const sellersIssueMeanings: Record<string, string> = {
  EMPTY_FILE: 'no content',
  HTML_BODY: 'the body is an HTML page',
  INVALID_JSON: 'structural JSON error (message says what; "reading on" when recovered)',
  NOT_AN_OBJECT: 'the document is a JSON array',
  MISSING_SELLERS: 'no `sellers` member',
  SELLERS_NOT_ARRAY: '`sellers` is not an array',
  MISSING_VERSION: 'no `version`',
  VERSION_NOT_STRING: '`version` written as a number',
  NONSTANDARD_KEY: 'a key spelled differently (`sellerId`, `Sellers`, `email`); read under the spec name, noted once per key',
  UTF16_ENCODING: 'the body is UTF-16 (BOM `FF FE` or `FE FF`; without a BOM, a NUL beside the first ASCII character: `xx 00` LE, `00 xx` BE) and was decoded; UTF-8 is expected (RFC 8259 §8.1)',
  INVALID_FIELD_TYPE: 'a string field holds a number, object or array',
  VALUE_TOO_LARGE: 'an entry or member over 1 MiB, skipped; or more than 1,000 `identifiers` (the rest not kept)',
  MORE_ISSUES_NOT_LISTED: 'N more issues of a code were counted but not listed (at most 100 are listed per code)',
  SELLER_NOT_OBJECT: 'a `sellers[]` element is not an object; skipped',
  INVALID_SELLER_JSON: 'an entry is not valid JSON; skipped',
  MISSING_SELLER_ID: 'no or empty `seller_id` (row kept, id null)',
  SELLER_ID_NOT_STRING: 'numeric `seller_id` (kept as text)',
  DUPLICATE_KEY: 'a key written more than once in one entry (`"name"` twice), or one field under two spellings (`seller_id` and `sellerId`); the value written last is kept, as `JSON.parse` does; one issue per repeated field',
  UNKNOWN_KEY: 'an entry key that is no seller field in any spelling (`seller_domain`; extensions belong in `ext`); not read, noted once per key',
  DUPLICATE_SELLER_ID: '`seller_id` seen before in the file (each repeat)',
  MISSING_SELLER_TYPE: 'no `seller_type`',
  INVALID_SELLER_TYPE: 'not PUBLISHER, INTERMEDIARY or BOTH (kept upper-cased)',
  SELLER_TYPE_CASE: 'valid type in another case (`publisher`)',
  INVALID_FLAG: '`is_confidential`/`is_passthrough` not 0/1 (booleans and "0"/"1" read; others null)',
  MISSING_NAME: 'no `name` and not confidential',
  CONFIDENTIAL_WITH_NAME: 'a confidential seller still gives its name',
  CONFIDENTIAL_WITH_DOMAIN: 'a confidential seller still gives its domain',
  MISSING_DOMAIN: 'no `domain` and not confidential (allowed without a web presence)',
  INVALID_DOMAIN: '`domain` is not a host name (a URL, a company name, a trailing `/`)',
  DOMAIN_NOT_ROOT: '`domain` is a subdomain (the spec asks for the root domain)',
};

export const buyersIssueMeanings: Record<string, string> = {
  EMPTY_FILE: 'no content',
  HTML_BODY: 'the body is an HTML page',
  INVALID_JSON: 'structural JSON error, or a cut file (the entries before the break are kept)',
  NOT_AN_OBJECT: 'the document is a JSON array',
  MISSING_BUYERS: 'no `buyers` member',
  BUYERS_NOT_ARRAY: '`buyers` is not an array',
  MISSING_VERSION: 'no `version`',
  VERSION_NOT_STRING: '`version` written as a number (kept as written)',
  NONSTANDARD_KEY: 'a key spelled differently (`buyerId`, `Buyers`, `contactEmail`); read under the spec name, noted once per key',
  UTF16_ENCODING: 'the body is UTF-16 and was decoded; UTF-8 is expected (RFC 8259 §8.1)',
  INVALID_FIELD_TYPE: 'a string field holds a number, object or array (kept as JSON text)',
  VALUE_TOO_LARGE: 'an entry or member over 1 MiB, skipped; or more than 1,000 `identifiers` (the rest not kept)',
  DUPLICATE_KEY: 'a key written more than once in one entry, or one field under two spellings (`buyer_id` and `buyerId`); the value written last is kept; one issue per repeated field',
  MORE_ISSUES_NOT_LISTED: 'N more issues of a code were counted but not listed (at most 100 are listed per code)',
  BUYER_NOT_OBJECT: 'a `buyers[]` element is not an object; skipped',
  MISSING_BUYER_ID: 'no or empty `buyer_id` (row kept, id null)',
  DUPLICATE_BUYER_ID: '`buyer_id` seen before in the file (each repeat)',
  UNKNOWN_KEY: 'an entry key that is no buyers.json 1.0 buyer field (extensions belong in `ext`); not read, noted once per key',
};

export const robotsIssueMeanings: Record<string, string> = {
  RULE_OUTSIDE_GROUP: 'allow/disallow before any user-agent line; ignored (RFC 9309 §2.2.2)',
  INVALID_LINE: 'not a `key: value` line, or the key is not a word; ignored (not listed line by line in an HTML body)',
  PATH_NOT_ABSOLUTE: "the rule's path starts with neither `/` nor `*`; read with a leading `/` (`fish/` is `/fish/`, Google's spec; RFC 9309 §2.2's grammar requires the `/`)",
  NUL_IN_LINE: "the line holds a NUL octet; it is read up to the first one, as Google's reference does",
  EMPTY_USER_AGENT: '`user-agent:` with no value',
  EMPTY_SITEMAP: '`sitemap:` with no URL',
  LINE_TOO_LONG: 'line cut at 16,663 octets, as in the reference implementation',
  PARSE_LIMIT: 'file-level: body over 500 KiB, the rest ignored (RFC 9309 §2.5)',
  INVALID_UTF8: 'file-level: not UTF-8; octets matched as found',
  HTML_BODY: 'file-level: an HTML page served as robots.txt (`status` `html`)',
  USER_AGENT_NOT_TOKEN: 'the user-agent value is not a product token; the message says what it matches as',
  KEY_TYPO: 'a misspelt key was accepted (`dissallow` → `disallow`)',
  MISSING_COLON: 'whitespace accepted in place of `:`',
  UNKNOWN_DIRECTIVE: 'a record other than the known ones (`crawl-delay`, `host`, `clean-param`, `request-rate`, `visit-time`, `noindex`, `license`, …); kept as data',
  LICENSE_NOT_URL: '`License:` (RSL 1.0) whose value is no http(s) URL, even relative to the robots.txt; kept in robots_licenses with resolved_url null',
  UTF16_DECODED: 'file-level: a UTF-16 body was decoded',
  ISSUES_CAPPED: 'file-level: more than 200 line issues; the rest are only counted',
};

export const fileStatusMeanings: Record<string, string> = {
  ok: 'the content was the kind asked for (an ads.txt with at least one record that is not the placeholder; a robots.txt or sellers.json read as such)',
  placeholder: 'ads.txt 1.1 §3.2.1: every record is the placeholder record; valid, authorizes nobody',
  empty: 'no record and no variable (ads.txt), or no bytes / `"sellers": []` (sellers.json); no bytes (tdmrep.json, llms.txt, an RSL licence)',
  html: 'an HTML page (a soft 404): no records; never valid',
  invalid_content_type: 'records kept, but the Content-Type is not text/plain; `valid = false`',
  too_large: 'cut at the byte cap; what was read is kept, never valid (a robots.txt still sets the policy from its first 500 KiB, RFC 9309 §2.5)',
  not_found: 'HTTP 404 (or 410)',
  unauthorized: 'HTTP 401 or 403',
  blocked: "a bot wall answered instead of the site: a CDN's challenge or block page (`fetches.error` `challenge`)",
  rate_limited: 'HTTP 429',
  http_error: 'any other HTTP error status',
  redirect_error: 'a redirect the kind does not allow (`fetches.error` says which: loop, limit, scope, invalid)',
  unreachable: 'no HTTP answer (`fetches.error` says why: a DNS class, `connect`, `tls`, `timeout`, `reset`, `blocked_address`, …), or a body that failed half-way',
  disallowed_by_robots: 'not asked, because robots.txt disallows it (only with `--obey-robots all`; store pages always)',
  invalid_json: 'sellers.json: not JSON; tdmrep.json: not JSON, or not an array of rules (TDMRep §3.1)',
  not_sellers_json: 'sellers.json: valid JSON but no `sellers` array',
  not_buyers_json: 'buyers.json: valid JSON but no `buyers` array',
  payment_required: "HTTP 402 (pay per crawl: access at a price, not a refusal); the answer's `crawler-price` header is in `fetches.crawler_price`, and nothing is paid",
};

export const obtainedMeanings: Record<string, string> = {
  fetched: "today's request answered, whatever the answer",
  revalidated: 'a conditional request answered 304 and the earlier body was read again',
  reused: 'an earlier copy still fresh, no request (only with `--reuse-fresh`)',
  carried_forward: "today's request failed and the earlier copy stands (ads.txt 1.1 §3.1); `age_days` says how old",
};
