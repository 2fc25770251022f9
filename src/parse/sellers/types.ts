/** Shapes shared by the sellers.json parser, its handlers and the `sellers` table builder. */
import { LIST_FILE_ISSUE_CODES, type ListFileCounts, type ListFileHeader, type ListIdentifier, type ListIssue, type Severity } from '../json-list/types.js';

export { MAX_IDENTIFIERS, type Severity } from '../json-list/types.js';

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

export type SellersIssue = ListIssue<SellersIssueCode>;

/**
 * `ok`: a sellers array was read; `empty`: no bytes, or an empty sellers array;
 * `html`: the body is an HTML page; `invalid_json`: the JSON is broken (entries read before
 * and, after recovery, around the break are still reported); `not_sellers_json`: valid JSON
 * without a `sellers` array (e.g. a publisher's single-seller object).
 */
export type SellersStatus = 'ok' | 'invalid_json' | 'not_sellers_json' | 'empty' | 'html';

export type SellersIdentifier = ListIdentifier;

export interface SellersSummary extends ListFileHeader, ListFileCounts {
  status: SellersStatus;
  sellers: number;
}

/** Stable issue codes; docs/reference/parse-issues.md is generated from this list (npm run docs). */
export const SELLERS_ISSUE_CODES = {
  ...LIST_FILE_ISSUE_CODES,
  // file level
  MISSING_SELLERS: 'error',
  SELLERS_NOT_ARRAY: 'error',
  // per seller
  SELLER_NOT_OBJECT: 'error',
  INVALID_SELLER_JSON: 'error',
  MISSING_SELLER_ID: 'error',
  SELLER_ID_NOT_STRING: 'warning',
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
