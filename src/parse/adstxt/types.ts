/**
 * Public shapes of the ads.txt / app-ads.txt parser (contract §1, §3 `ads_records`,
 * `ads_variables`, `parse_issues`). Field names are camelCase here; the CLI and the table
 * writers turn them into the contract's snake_case columns.
 */
export type AdsFileKind = 'ads.txt' | 'app-ads.txt';

export type IssueSeverity = 'error' | 'warning' | 'info';

/** One data record (ads.txt 1.1 §3.2.2, §3.4.2) that was kept. */
export interface AdsRecord {
  lineNo: number;
  /** Field #1, lower-cased ASCII (IDN as punycode), validated as a DNS name. */
  adSystemDomain: string;
  /** Field #2, trimmed, as written. */
  sellerAccountId: string;
  /** Field #3, upper-cased: DIRECT, RESELLER, or another value (kept, with a warning). */
  relationship: string;
  /** Field #4, trimmed; null when absent or empty. */
  certAuthorityId: string | null;
  /** Text after the first `;` (ads.txt 1.1 §3.4.3), trimmed; null when absent or empty. */
  extension: string | null;
}

/** One `<VARIABLE>=<VALUE>` line (ads.txt 1.1 §3.5). */
export interface AdsVariable {
  lineNo: number;
  /** Upper-cased name. */
  name: string;
  /** Value, trimmed (comments already removed). */
  value: string;
  /** Lower-cased ASCII domain of SUBDOMAIN, INVENTORYPARTNERDOMAIN, OWNERDOMAIN, MANAGERDOMAIN; null when invalid or another variable. */
  valueDomain: string | null;
  /** Upper-cased ISO 3166-1 alpha-2 country of a MANAGERDOMAIN; else null. */
  valueCountry: string | null;
}

export interface ParseIssue {
  /** 1-based line, or null for a file-level issue. */
  lineNo: number | null;
  severity: IssueSeverity;
  /** Stable code from `adsTxtIssueCodes`. */
  code: string;
  message: string;
  /** The offending line, at most 256 characters; null for file-level issues. */
  lineText: string | null;
}

export interface AdsTxtHandler {
  onRecord?(r: AdsRecord): void;
  onVariable?(v: AdsVariable): void;
  onIssue?(i: ParseIssue): void;
}

export type AdsTxtStatus = 'ok' | 'placeholder' | 'empty' | 'html';

export interface DeclaredDomain {
  lineNo: number;
  domain: string;
}

export interface AdsTxtSummary {
  status: AdsTxtStatus;
  records: number;
  variables: number;
  errors: number;
  warnings: number;
  infos: number;
  /** Lines seen (CR, LF and CRLF each end one). */
  lines: number;
  /** Body bytes consumed. */
  bytes: number;
  /** Domain of the first OWNERDOMAIN line (ads.txt 1.1 §3.5.1), null when absent or invalid. */
  ownerDomain: string | null;
  /** SUBDOMAIN referrals in file order, validated and lower-cased; always empty for app-ads.txt. */
  subdomains: DeclaredDomain[];
  /** INVENTORYPARTNERDOMAIN referrals in file order, validated and lower-cased. */
  inventoryPartnerDomains: DeclaredDomain[];
}

export interface AdsTxtParserOptions {
  fileKind: AdsFileKind;
  /**
   * Longest line parsed, in characters; a longer line is cut and, unless the cut falls inside a
   * comment, reported as LINE_TOO_LONG. Bounds memory for a body without line ends.
   * @default 32768
   */
  maxLineLength?: number;
  /**
   * Most SUBDOMAIN / INVENTORYPARTNERDOMAIN referrals listed in the summary (each list); the
   * rest are still emitted as variables but reported as TOO_MANY_REFERRALS, so a hostile file
   * cannot make the crawl follow an unbounded number of hops.
   * @default 10000
   */
  maxReferrals?: number;
  /**
   * Use the single-regex fast path for canonical record lines. Results are identical either
   * way; tests turn it off to cross-check the two paths.
   * @default true
   */
  canonicalFastPath?: boolean;
}
