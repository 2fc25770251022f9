/**
 * sellers.json (IAB Tech Lab sellers.json 1.0): streaming parser, its issue codes, and the
 * `sellers` table row builder. See sellers-parser.ts for the behaviour.
 */
import { SellersJsonParser, type SellersJsonParserOptions } from './sellers-parser.js';
import type { Seller, SellersIssue, SellersSummary } from './types.js';

export { SellersJsonParser, type SellersJsonHandler, type SellersJsonParserOptions } from './sellers-parser.js';
export { canonicalSellerKey } from './seller-entry.js';
export * from './types.js';

/** Parses a whole sellers.json held in memory (tests, small files). Streams internally all the same. */
export function parseSellersJson(
  input: string | Uint8Array,
  options?: SellersJsonParserOptions,
): { sellers: Seller[]; issues: SellersIssue[]; summary: SellersSummary } {
  const sellers: Seller[] = [];
  const issues: SellersIssue[] = [];
  const parser = new SellersJsonParser({ onSeller: (s) => sellers.push(s), onIssue: (i) => issues.push(i) }, options);
  if (typeof input === 'string') parser.pushText(input);
  else parser.push(input);
  return { sellers, issues, summary: parser.end() };
}

