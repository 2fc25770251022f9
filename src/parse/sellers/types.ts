/** Shapes shared by the sellers.json parser, its handlers and the `sellers` table builder. */

/** One `sellers[]` entry (sellers.json 1.0, Seller object), normalised; absent fields are null. */
export interface Seller {
  sellerId: string | null;
  /** Upper-cased: PUBLISHER, INTERMEDIARY, BOTH, or another value kept with an error issue. */
  sellerType: string | null;
  name: string | null;
  /** Lower-cased and trimmed, as written otherwise (flagged when it is not a domain name). */
  domain: string | null;
  isConfidential: boolean | null;
  isPassthrough: boolean | null;
  comment: string | null;
  /** 1-based line where the entry starts. */
  lineNo: number;
}

export type Severity = 'error' | 'warning' | 'info';

export interface SellersIssue {
  /** Line where the offending entry or token starts; null for file-level issues. */
  lineNo: number | null;
  severity: Severity;
  code: SellersIssueCode;
  message: string;
  /** The offending entry as compact text, at most 256 characters; null for file-level issues. */
  lineText: string | null;
}

/**
 * `ok`: a sellers array was read; `empty`: no bytes, or an empty sellers array;
 * `html`: the body is an HTML page; `invalid_json`: the JSON is broken (entries read before
 * and, after recovery, around the break are still reported); `not_sellers_json`: valid JSON
 * without a `sellers` array (e.g. a publisher's single-seller object).
 */
export type SellersStatus = 'ok' | 'invalid_json' | 'not_sellers_json' | 'empty' | 'html';

export interface SellersIdentifier {
  name: string | null;
  value: string | null;
}

export interface SellersSummary {
  status: SellersStatus;
  sellers: number;
  errors: number;
  warnings: number;
  infos: number;
  version: string | null;
  contactEmail: string | null;
  contactAddress: string | null;
  /** At most MAX_IDENTIFIERS (IAB sellers.json 1.0: name/value pairs such as TAG-ID, DUNS). */
  identifiers: SellersIdentifier[];
  /** The top-level `ext` object as JSON text (re-serialised), or null when absent. */
  ext: string | null;
}

/** Identifiers kept per file; more are counted in a VALUE_TOO_LARGE issue. */
export const MAX_IDENTIFIERS = 1000;

/** Stable issue codes; docs/reference/parse-issues.md is generated from this list (npm run docs). */
export const SELLERS_ISSUE_CODES = {
  // file level
  EMPTY_FILE: 'error',
  HTML_BODY: 'error',
  INVALID_JSON: 'error',
  NOT_AN_OBJECT: 'error',
  MISSING_SELLERS: 'error',
  SELLERS_NOT_ARRAY: 'error',
  MISSING_VERSION: 'warning',
  VERSION_NOT_STRING: 'warning',
  NONSTANDARD_KEY: 'warning',
  UTF16_ENCODING: 'info',
  INVALID_FIELD_TYPE: 'warning',
  VALUE_TOO_LARGE: 'warning',
  MORE_ISSUES_NOT_LISTED: 'info',
  // per seller
  SELLER_NOT_OBJECT: 'error',
  INVALID_SELLER_JSON: 'error',
  MISSING_SELLER_ID: 'error',
  SELLER_ID_NOT_STRING: 'warning',
  DUPLICATE_KEY: 'warning',
  UNKNOWN_KEY: 'info',
  DUPLICATE_SELLER_ID: 'warning',
  MISSING_SELLER_TYPE: 'error',
  INVALID_SELLER_TYPE: 'error',
  SELLER_TYPE_CASE: 'warning',
  INVALID_FLAG: 'warning',
  MISSING_NAME: 'warning',
  CONFIDENTIAL_WITH_NAME: 'warning',
  CONFIDENTIAL_WITH_DOMAIN: 'warning',
  MISSING_DOMAIN: 'info',
  INVALID_DOMAIN: 'warning',
  DOMAIN_NOT_ROOT: 'info',
} as const satisfies Record<string, Severity>;

export type SellersIssueCode = keyof typeof SELLERS_ISSUE_CODES;
