/**
 * buyers.json (IAB Tech Lab buyers.json 1.0, released 2021): the demand side's counterpart of
 * sellers.json, published at the root of an ad system's domain. Its parent object mirrors
 * sellers.json's (`contact_email`, `contact_address`, `version`, `identifiers`, `ext`) with a
 * `buyers` array; each entry names a buyer seat: `buyer_id` (required), `is_confidential`,
 * `name`, `domain`, `buyer_type`, `comment`, `ext` (docs/reference/tables.md#buyers says what was
 * read of the specification, and where).
 */
import { LIST_FILE_ISSUE_CODES, type ListFileCounts, type ListFileHeader, type ListIssue, type Severity } from '../json-list/types.js';

export interface Buyer {
  buyerId: string | null;
  /** As written, trimmed (the buyer's kind: brand, agency, DSP seat…); null when absent. */
  buyerType: string | null;
  name: string | null;
  /** Lower-cased and trimmed. */
  domain: string | null;
  isConfidential: boolean | null;
  comment: string | null;
  lineNo: number;
}

/** As sellers.json's statuses, with `not_buyers_json` for valid JSON without a `buyers` array. */
export type BuyersStatus = 'ok' | 'invalid_json' | 'not_buyers_json' | 'empty' | 'html';

export interface BuyersSummary extends ListFileHeader, ListFileCounts {
  status: BuyersStatus;
  buyers: number;
}

export type BuyersIssue = ListIssue<BuyersIssueCode>;

/** Stable issue codes; docs/reference/parse-issues.md is generated from this list (npm run docs). */
export const BUYERS_ISSUE_CODES = {
  ...LIST_FILE_ISSUE_CODES,
  MISSING_BUYERS: 'error',
  BUYERS_NOT_ARRAY: 'error',
  BUYER_NOT_OBJECT: 'error',
  MISSING_BUYER_ID: 'error',
  DUPLICATE_BUYER_ID: 'warning',
} as const satisfies Record<string, Severity>;

export type BuyersIssueCode = keyof typeof BUYERS_ISSUE_CODES;
