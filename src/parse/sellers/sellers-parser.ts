import { JsonListFileParser, type ListFileKind, type ListFileParserOptions } from '../json-list/list-file-parser.js';
import { readSellerEntry, SELLER_KEYS } from './seller-entry.js';
import { SELLERS_ISSUE_CODES, type Seller, type SellersIssue, type SellersIssueCode, type SellersSummary } from './types.js';

export interface SellersJsonHandler {
  onSeller?(seller: Seller): void;
  onIssue?(issue: SellersIssue): void;
}

export type SellersJsonParserOptions = ListFileParserOptions;

/** sellers.json 1.0 as the JSON list-file parser reads it (src/parse/json-list/). */
export const SELLERS_JSON: ListFileKind<Seller, SellersIssueCode, 'not_sellers_json'> = {
  file: 'sellers.json',
  listKey: 'sellers',
  noun: 'seller',
  codes: SELLERS_ISSUE_CODES,
  notListStatus: 'not_sellers_json',
  missingList: 'MISSING_SELLERS',
  listNotArray: 'SELLERS_NOT_ARRAY',
  entryNotJson: 'INVALID_SELLER_JSON',
  entryNotObject: 'SELLER_NOT_OBJECT',
  keys: SELLER_KEYS,
  // Seller fields at the top level: a publisher's single seller object, not a sellers.json.
  idKey: 'seller_id',
  readEntry: readSellerEntry,
};

/**
 * Streaming sellers.json parser (IAB Tech Lab sellers.json 1.0). Push the body's bytes in any
 * chunking; each seller is handed to `onSeller` as soon as its entry closes, issues to
 * `onIssue`, and `end()` returns the file's summary. Memory holds one entry at a time plus the
 * set of seller ids (for duplicate detection). Never throws on bad input: broken JSON, HTML
 * and non-sellers documents become a status and issues with stable codes.
 */
export class SellersJsonParser extends JsonListFileParser<Seller, SellersIssueCode, 'not_sellers_json'> {
  constructor(handler: SellersJsonHandler = {}, options: SellersJsonParserOptions = {}) {
    super(SELLERS_JSON, { onEntry: handler.onSeller, onIssue: handler.onIssue }, options);
  }

  end(): SellersSummary {
    const { entries, ...summary } = this.endList();
    return { ...summary, sellers: entries };
  }
}
