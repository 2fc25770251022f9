import { entryKeys } from '../json-list/entry-keys.js';
import { JsonListFileParser, type EntryContext, type ListFileKind, type ListFileParserOptions } from '../json-list/list-file-parser.js';
import { BUYERS_ISSUE_CODES, type Buyer, type BuyersIssue, type BuyersIssueCode, type BuyersSummary } from './types.js';

export interface BuyersJsonHandler {
  onBuyer?(buyer: Buyer): void;
  onIssue?(issue: BuyersIssue): void;
}

/** The Buyer object's fields (buyers.json 1.0); other spellings fold onto them (entry-keys.ts). */
const BUYER_KEYS = entryKeys(['buyer_id', 'buyer_type', 'is_confidential', 'name', 'domain', 'comment', 'ext']);

/** buyers.json 1.0 as the JSON list-file parser reads it (src/parse/json-list/): the header and its issues as sellers.json's. */
export const BUYERS_JSON: ListFileKind<Buyer, BuyersIssueCode, 'not_buyers_json'> = {
  file: 'buyers.json',
  listKey: 'buyers',
  noun: 'buyer',
  codes: BUYERS_ISSUE_CODES,
  notListStatus: 'not_buyers_json',
  missingList: 'MISSING_BUYERS',
  listNotArray: 'BUYERS_NOT_ARRAY',
  entryNotJson: 'INVALID_JSON',
  entryNotObject: 'BUYER_NOT_OBJECT',
  keys: BUYER_KEYS,
  idKey: 'buyer_id',
  readEntry: readBuyerEntry,
};

/**
 * Streaming buyers.json parser, the sellers.json parser's machinery (src/parse/json-list/): one
 * `buyers[]` entry in memory at a time, each handed to `onBuyer` as it closes. Never throws on
 * bad input: broken JSON, HTML and other documents become a status and issues with stable codes.
 */
export class BuyersJsonParser extends JsonListFileParser<Buyer, BuyersIssueCode, 'not_buyers_json'> {
  constructor(handler: BuyersJsonHandler = {}, options: ListFileParserOptions = {}) {
    super(BUYERS_JSON, { onEntry: handler.onBuyer, onIssue: handler.onIssue }, options);
  }

  end(): BuyersSummary {
    const { entries, ...summary } = this.endList();
    return { ...summary, buyers: entries };
  }
}

/** One `buyers[]` entry, its fields under their canonical names: kept whatever it lacks, its faults as issues. */
function readBuyerEntry(e: Record<string, unknown>, ctx: EntryContext<BuyersIssueCode>): Buyer {
  const bad = (field: string) => ctx.issue('INVALID_FIELD_TYPE', `${field} should be a string`);
  const id = e.buyer_id === undefined || e.buyer_id === null ? null : typeof e.buyer_id === 'number' ? String(e.buyer_id) : stringOrNull(e.buyer_id, () => bad('buyer_id'));
  if (id === null || id.trim() === '') ctx.issue('MISSING_BUYER_ID', 'a buyer has no buyer_id');
  else if (!ctx.seenIds.add(id.trim())) ctx.issue('DUPLICATE_BUYER_ID', `buyer_id ${JSON.stringify(id.trim())} is listed more than once`);
  const conf = e.is_confidential;
  return {
    buyerId: id === null ? null : id.trim(),
    buyerType: trimmed(stringOrNull(e.buyer_type, () => bad('buyer_type'))),
    name: trimmed(stringOrNull(e.name, () => bad('name'))),
    domain: trimmed(stringOrNull(e.domain, () => bad('domain')))?.toLowerCase() ?? null,
    isConfidential: conf === 1 || conf === true ? true : conf === 0 || conf === false ? false : null,
    comment: stringOrNull(e.comment, () => bad('comment')),
    lineNo: ctx.lineNo,
  };
}

function stringOrNull(v: unknown, onBad: () => void): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return v;
  onBad();
  return JSON.stringify(v);
}

function trimmed(s: string | null): string | null {
  const t = s?.trim();
  return t ? t : null;
}
