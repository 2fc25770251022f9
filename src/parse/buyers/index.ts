/** buyers.json (IAB Tech Lab buyers.json 1.0): streaming parser and its issue codes. */
import { BuyersJsonParser } from './buyers-parser.js';
import type { Buyer, BuyersIssue, BuyersSummary } from './types.js';

export { BuyersJsonParser, type BuyersJsonHandler } from './buyers-parser.js';
export * from './types.js';

/** Parses a whole buyers.json held in memory (tests, `adsnap parse`). Streams internally all the same. */
export function parseBuyersJson(input: string | Uint8Array): { buyers: Buyer[]; issues: BuyersIssue[]; summary: BuyersSummary } {
  const buyers: Buyer[] = [];
  const issues: BuyersIssue[] = [];
  const parser = new BuyersJsonParser({ onBuyer: (b) => buyers.push(b), onIssue: (i) => issues.push(i) });
  parser.push(typeof input === 'string' ? new TextEncoder().encode(input) : input);
  return { buyers, issues, summary: parser.end() };
}
