import { isValidDnsName, rootDomain, toAsciiHost } from '../../util/domain.js';
import { canonicalKey, entryKeys } from '../json-list/entry-keys.js';
import type { EntryContext } from '../json-list/list-file-parser.js';
import type { Seller, SellersIssueCode } from './types.js';

/**
 * Reads one parsed `sellers[]` element into a Seller and reports what violates sellers.json 1.0
 * (Seller object). Everything readable is kept: a violation is an issue, not a dropped row,
 * so analysts choose how strict to be (spec-decisions).
 */

export type EntryIssue = (code: SellersIssueCode, message: string) => void;

const SELLER_TYPES = new Set(['PUBLISHER', 'INTERMEDIARY', 'BOTH']);
// An RFC 1123 name of 1–63-character labels, not all-digit TLD (same rule as isValidDnsName).
const PLAIN_NAME = /^(?=.{1,253}$)(?:(?!-)[a-z0-9-]{1,63}(?<!-)\.)+(?!-)(?=[a-z0-9-]*[a-z-])[a-z0-9-]{1,63}(?<!-)$/;

/** The Seller object's fields (sellers.json 1.0); other spellings fold onto them (entry-keys.ts). */
export const SELLER_KEYS = entryKeys(['seller_id', 'seller_type', 'is_confidential', 'is_passthrough', 'name', 'domain', 'comment', 'ext']);

/** The spec's name for a key written differently (`sellerId` → `seller_id`), or the key itself. */
export const canonicalSellerKey = (key: string): string => canonicalKey(SELLER_KEYS, key);

function text(value: unknown, field: string, issue: EntryIssue): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') {
    issue('INVALID_FIELD_TYPE', `${field} should be a string, found ${typeof value} ${String(value)}`);
    return String(value);
  }
  issue('INVALID_FIELD_TYPE', `${field} should be a string, found ${Array.isArray(value) ? 'an array' : 'an object'}`);
  return JSON.stringify(value);
}

/** sellers.json 1.0: is_confidential / is_passthrough are integers 0 or 1. */
function flag(value: unknown, field: string, issue: EntryIssue): boolean | null {
  if (value === undefined || value === null) return null;
  if (value === 0 || value === 1) return value === 1;
  if (value === true || value === false || value === '0' || value === '1' || value === 'true' || value === 'false') {
    issue('INVALID_FLAG', `${field} should be the integer 0 or 1, found ${JSON.stringify(value)}`);
    return value === true || value === '1' || value === 'true';
  }
  issue('INVALID_FLAG', `${field} should be the integer 0 or 1, found ${JSON.stringify(value)}; ignored`);
  return null;
}

/** Digits of a numeric seller_id as written (the last one, as the value kept): JSON.parse rounds integers beyond 2^53. */
function rawNumericId(entryText: string): string | null {
  let digits: string | null = null;
  for (const m of entryText.matchAll(/"seller_?id"\s*:\s*(-?\d+)\s*[,}]/gi)) digits = m[1]!;
  return digits;
}

/** One `sellers[]` entry, its fields under their canonical names (canonicalFields), read into a Seller. */
export function readSellerEntry(f: Record<string, unknown>, ctx: EntryContext<SellersIssueCode>): Seller {
  const issue: EntryIssue = ctx.issue;
  const { lineNo, text: entryText } = ctx;
  // seller_id: required string, unique within the file.
  let sellerId: string | null = null;
  const rawId = f.seller_id;
  if (typeof rawId === 'string') sellerId = rawId.trim();
  else if (typeof rawId === 'number') {
    sellerId = (!Number.isSafeInteger(rawId) && rawNumericId(entryText)) || String(rawId);
    issue('SELLER_ID_NOT_STRING', `seller_id should be a string, found the number ${sellerId}`);
  } else if (rawId !== undefined && rawId !== null) sellerId = text(rawId, 'seller_id', issue);
  if (sellerId === null || sellerId === '') {
    issue('MISSING_SELLER_ID', 'seller_id is missing or empty');
    sellerId = null;
  } else if (!ctx.seenIds.add(sellerId)) {
    issue('DUPLICATE_SELLER_ID', `seller_id ${JSON.stringify(sellerId)} appears more than once`);
  }

  // seller_type: required, PUBLISHER | INTERMEDIARY | BOTH.
  let sellerType = text(f.seller_type, 'seller_type', issue);
  if (sellerType === null || sellerType.trim() === '') {
    issue('MISSING_SELLER_TYPE', 'seller_type is missing or empty');
    sellerType = null;
  } else {
    const upper = sellerType.trim().toUpperCase();
    if (!SELLER_TYPES.has(upper)) issue('INVALID_SELLER_TYPE', `seller_type ${JSON.stringify(sellerType)} is not PUBLISHER, INTERMEDIARY or BOTH`);
    else if (upper !== sellerType) issue('SELLER_TYPE_CASE', `seller_type ${JSON.stringify(sellerType)} should be written ${upper}`);
    sellerType = upper;
  }

  const isConfidential = flag(f.is_confidential, 'is_confidential', issue);
  const isPassthrough = flag(f.is_passthrough, 'is_passthrough', issue);
  const name = text(f.name, 'name', issue);
  const rawDomain = text(f.domain, 'domain', issue);
  const comment = text(f.comment, 'comment', issue);
  const domain = rawDomain === null || rawDomain.trim() === '' ? null : rawDomain.trim().toLowerCase();

  if (isConfidential === true) {
    // Confidential sellers are listed without identifying details.
    if (name !== null && name.trim() !== '') issue('CONFIDENTIAL_WITH_NAME', 'a confidential seller (is_confidential = 1) has a name');
    if (domain !== null) issue('CONFIDENTIAL_WITH_DOMAIN', 'a confidential seller (is_confidential = 1) has a domain');
  } else {
    if (name === null || name.trim() === '') issue('MISSING_NAME', 'name is required unless is_confidential = 1');
    // domain may be omitted when the seller has no web presence: worth noting, not an error.
    if (domain === null) issue('MISSING_DOMAIN', 'no domain (allowed only for sellers without a web presence)');
  }
  if (domain !== null) {
    // Plain ASCII names (nearly all) are checked with one regex; others go through IDNA first.
    // domainToASCII cuts at '/', '?' or '#' ("site.com/" → "site.com"): reject those first.
    const plain = PLAIN_NAME.test(domain);
    const ascii = plain ? domain : /[\s/?#:@\\]/.test(domain) ? '' : toAsciiHost(domain);
    if (!plain && !isValidDnsName(ascii)) issue('INVALID_DOMAIN', `domain ${JSON.stringify(rawDomain)} is not a domain name`);
    else {
      const root = rootDomain(ascii);
      if (root !== ascii) issue('DOMAIN_NOT_ROOT', `domain ${JSON.stringify(domain)} is not a root domain (${root ?? 'no registrable domain'})`);
    }
  }

  return { sellerId, sellerType, name, domain, isConfidential, isPassthrough, comment, lineNo };
}
