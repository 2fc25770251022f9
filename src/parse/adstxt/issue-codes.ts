import type { IssueSeverity } from './types.js';

/**
 * Every issue the ads.txt / app-ads.txt parser reports. Codes are stable: analysts filter
 * `parse_issues` on them. docs/reference/parse-issues.md is generated from this list (npm run docs).
 *
 * Severity (contract §1): `error` — the line authorizes nothing (no record is kept);
 * `warning` — kept, but suspect; `info` — worth knowing, nothing wrong for a buyer.
 *
 * The contract's example shows `INVALID_RELATIONSHIP` as an error, but its text says a
 * relationship other than DIRECT/RESELLER is kept upper-cased with a warning; adsnap follows the
 * text and uses the single code UNKNOWN_RELATIONSHIP (warning). INVALID_RELATIONSHIP is never emitted.
 */
export interface IssueCodeInfo {
  code: string;
  severity: IssueSeverity;
  meaning: string;
  spec: string;
}

export const adsTxtIssueCodes = [
  // — errors: the line (or the whole body) authorizes nothing —
  { code: 'TOO_FEW_FIELDS', severity: 'error', meaning: 'a record line has fewer than 3 non-empty comma-separated fields; no record', spec: 'ads.txt 1.1 §3.4.2' },
  { code: 'EMPTY_FIELD', severity: 'error', meaning: 'field 1, 2 or 3 of a record is empty although 3 or more fields are filled (e.g. `a.com,,DIRECT,x`); no record', spec: 'ads.txt 1.1 §3.2.2' },
  { code: 'INVALID_DOMAIN', severity: 'error', meaning: 'field 1 is not a valid DNS name (RFC 1123 labels, at least two, no `_`, no URL); no record', spec: 'ads.txt 1.1 §3.4.2' },
  { code: 'LINE_TOO_LONG', severity: 'error', meaning: 'a line longer than the parser limit (32 KiB) was cut before any `#`; nothing kept from it', spec: 'ads.txt 1.1 §5.3' },
  { code: 'HTML_BODY', severity: 'error', meaning: 'the body is an HTML page (status `html`); nothing in it is parsed', spec: 'ads.txt 1.1 §3.2, §3.2.1' },
  // — warnings: kept, but suspect —
  { code: 'UNKNOWN_RELATIONSHIP', severity: 'warning', meaning: 'field 3 is neither DIRECT nor RESELLER (case-insensitive); the record is kept with the value upper-cased', spec: 'ads.txt 1.1 §3.2.2' },
  { code: 'EXTRA_FIELDS', severity: 'warning', meaning: 'a record has more than 4 fields, or a MANAGERDOMAIN more than `domain, country`; the extra fields are dropped', spec: 'ads.txt 1.1 §3.4.2, §3.5.1' },
  { code: 'WHITESPACE_IN_FIELD', severity: 'warning', meaning: 'field 2, 3 or 4 contains a space or tab (should be URL-encoded); kept as written', spec: 'ads.txt 1.1 §3.4.2' },
  { code: 'INVALID_VARIABLE_DOMAIN', severity: 'warning', meaning: 'the value of SUBDOMAIN, INVENTORYPARTNERDOMAIN, OWNERDOMAIN or MANAGERDOMAIN is not a valid domain; the variable is kept with `value_domain` null and is not followed', spec: 'ads.txt 1.1 §3.5.1' },
  { code: 'EMPTY_VARIABLE_VALUE', severity: 'warning', meaning: 'a variable line has nothing after `=`; kept with an empty value', spec: 'ads.txt 1.1 §3.5' },
  { code: 'NOT_REGISTRABLE_DOMAIN', severity: 'warning', meaning: 'an OWNERDOMAIN or MANAGERDOMAIN value is not a registrable domain (PSL+1); kept', spec: 'ads.txt 1.1 §3.5.1' },
  { code: 'DUPLICATE_OWNERDOMAIN', severity: 'warning', meaning: 'a second or later OWNERDOMAIN line; kept, but only the first counts', spec: 'ads.txt 1.1 §3.5.1' },
  { code: 'DUPLICATE_MANAGERDOMAIN', severity: 'warning', meaning: 'a second global MANAGERDOMAIN, or a second one for the same country; kept, but only the first counts', spec: 'ads.txt 1.1 §3.5.1' },
  { code: 'INVALID_COUNTRY', severity: 'warning', meaning: 'the country of a MANAGERDOMAIN is not an ISO 3166-1 alpha-2 code; kept with `value_country` null', spec: 'ads.txt 1.1 §3.5.1' },
  { code: 'SUBDOMAIN_IN_APP_ADS', severity: 'warning', meaning: 'SUBDOMAIN in an app-ads.txt: kept as a variable but ignored (not a referral)', spec: 'app-ads.txt 1.0 "Publish an app-ads.txt file"' },
  { code: 'TOO_MANY_REFERRALS', severity: 'warning', meaning: 'more SUBDOMAIN or INVENTORYPARTNERDOMAIN lines than the parser lists (10,000 each); later ones are kept as variables but not followed (reported once)', spec: 'ads.txt 1.1 §5.5, §5.7' },
  { code: 'PLACEHOLDER_WITH_RECORDS', severity: 'warning', meaning: 'the placeholder record appears beside real records; the file is `ok`, not `placeholder`', spec: 'ads.txt 1.1 §3.2.1' },
  { code: 'EMPTY_FILE', severity: 'warning', meaning: 'no record and no variable (status `empty`): the deprecated empty-file meaning, not a valid declaration', spec: 'ads.txt 1.1 §3.2.1' },
  { code: 'INVALID_UTF8', severity: 'warning', meaning: 'bytes that are not valid UTF-8 were replaced by U+FFFD (reported once per file)', spec: 'ads.txt 1.1 §3.1' },
  // — info —
  { code: 'UNKNOWN_VARIABLE', severity: 'info', meaning: 'a variable other than CONTACT, SUBDOMAIN, INVENTORYPARTNERDOMAIN, OWNERDOMAIN, MANAGERDOMAIN; kept', spec: 'ads.txt 1.1 §3.5, §5.6' },
  { code: 'UTF8_BOM', severity: 'info', meaning: 'the body starts with a UTF-8 byte-order mark (dropped)', spec: 'ads.txt 1.1 §5.3' },
  { code: 'UTF16_ENCODING', severity: 'info', meaning: 'the body is UTF-16 (detected by its BOM) and was decoded; UTF-8 is expected', spec: 'ads.txt 1.1 §3.1' },
] as const satisfies readonly IssueCodeInfo[];

export type AdsTxtIssueCode = (typeof adsTxtIssueCodes)[number]['code'];

export const severityOf: Readonly<Record<AdsTxtIssueCode, IssueSeverity>> = Object.fromEntries(
  adsTxtIssueCodes.map((c) => [c.code, c.severity]),
) as Record<AdsTxtIssueCode, IssueSeverity>;
