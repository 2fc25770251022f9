import { isValidDnsName, rootDomain, toAsciiHost } from '../../util/domain.js';
import type { CompactStringSet } from '../../util/compact-string-set.js';
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

// Keys as real files spell them (camelCase, other cases) → the spec's snake_case names.
const SELLER_KEYS: Record<string, string> = {
  sellerid: 'seller_id',
  sellertype: 'seller_type',
  isconfidential: 'is_confidential',
  ispassthrough: 'is_passthrough',
  name: 'name',
  domain: 'domain',
  comment: 'comment',
  ext: 'ext',
};

const SPEC_KEYS = new Set(Object.values(SELLER_KEYS));

/** The spec's name for a key written differently (`sellerId` → `seller_id`), or the key itself. */
export function canonicalSellerKey(key: string): string {
  if (SPEC_KEYS.has(key)) return key;
  return SELLER_KEYS[key.replace(/[_\-\s]/g, '').toLowerCase()] ?? key;
}

/** How often a key is written at the entry's top level, and where it is written last. */
interface KeyWritten {
  count: number;
  last: number;
}

/**
 * Fields of an entry under their canonical names; `onRenamed` hears each key written differently,
 * `onUnknown` each key that is no Seller field in any spelling, `onRepeated` each field written
 * more than once: the same key twice (JSON.parse keeps the last value), or two spellings of one
 * field (`seller_id` and `sellerId`), where the value written last is kept too. `written` is the
 * text's count of each top-level key (repeatedKeys), null when no key is written twice; the
 * order of Object.keys is then the order of the text.
 */
function canonicalFields(
  entry: Record<string, unknown>,
  written: Map<string, KeyWritten> | null,
  onRenamed: (written: string, canonical: string) => void,
  onUnknown: (key: string) => void,
  onRepeated: (field: string, count: number, spellings: readonly string[]) => void,
): Record<string, unknown> {
  // Fast path (nearly every real entry): all keys already as the spec writes them, none repeated.
  let allSpec = written === null;
  if (allSpec) {
    for (const key in entry) {
      if (!SPEC_KEYS.has(key)) {
        allSpec = false;
        break;
      }
    }
  }
  if (allSpec) return entry;
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const fields = new Map<string, { at: number; count: number; spellings: string[] }>();
  let index = 0;
  for (const key of Object.keys(entry)) {
    const canonical = canonicalSellerKey(key);
    if (canonical !== key) onRenamed(key, canonical);
    else if (!SPEC_KEYS.has(key)) onUnknown(key);
    const w = written?.get(key);
    const at = w?.last ?? index; // with `written`, every top-level key is in it
    index++;
    const field = fields.get(canonical);
    if (field === undefined) {
      fields.set(canonical, { at, count: w?.count ?? 1, spellings: [key] });
      out[canonical] = entry[key];
      continue;
    }
    field.count += w?.count ?? 1;
    field.spellings.push(key);
    if (at > field.at) {
      field.at = at;
      out[canonical] = entry[key];
    }
  }
  for (const [canonical, f] of fields) if (f.count > 1) onRepeated(canonical, f.count, f.spellings);
  return out;
}

/**
 * Keys written at the entry's top level, with how often and the offset of the last one; null
 * when none is written twice. JSON.parse keeps the last value of a repeated key without a word,
 * so only the text can tell. The scanner counted the keys written (`:` outside strings); when
 * the parsed value has as many, nothing was repeated, so the text is scanned only for the rare
 * entry with a repeat somewhere.
 */
function repeatedKeys(entry: Record<string, unknown>, entryText: string, keysWritten: number): Map<string, KeyWritten> | null {
  if (entryText === '' || keysWritten <= keyCount(entry)) return null;
  const counts = new Map<string, KeyWritten>();
  let repeated = false;
  let depth = 0;
  const n = entryText.length;
  for (let i = 0; i < n; i++) {
    const c = entryText.charCodeAt(i);
    if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) depth--;
    else if (c === 34) {
      const start = i;
      let escaped = false;
      for (i++; i < n; i++) {
        const d = entryText.charCodeAt(i);
        if (d === 92) {
          escaped = true;
          i++;
        } else if (d === 34) break;
      }
      if (depth !== 1) continue;
      let j = i + 1;
      while (j < n && isJsonSpace(entryText.charCodeAt(j))) j++;
      if (entryText.charCodeAt(j) !== 58) continue; // a string value, not a key
      const raw = entryText.slice(start, i + 1);
      const key = escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1);
      const seen = counts.get(key);
      if (seen === undefined) counts.set(key, { count: 1, last: start });
      else {
        repeated = true;
        seen.count++;
        seen.last = start;
      }
    }
  }
  return repeated ? counts : null; // not repeated: the repeat was inside a nested object (`ext`)
}

/** Keys of an object and of every object nested in it (arrays included). */
function keyCount(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (const v of value) count += keyCount(v);
    return count;
  }
  for (const key in value) {
    count++;
    const v = (value as Record<string, unknown>)[key];
    if (v !== null && typeof v === 'object') count += keyCount(v);
  }
  return count;
}

function isJsonSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

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

export interface EntryContext {
  /** Seller ids seen so far in this file (duplicate detection). */
  seenIds: CompactStringSet;
  onRenamed(written: string, canonical: string, lineNo: number): void;
  /** A key that is no Seller field (sellers.json 1.0 puts extensions in `ext`). */
  onUnknownKey(key: string, lineNo: number): void;
}

/** Digits of a numeric seller_id as written (the last one, as the value kept): JSON.parse rounds integers beyond 2^53. */
function rawNumericId(entryText: string): string | null {
  let digits: string | null = null;
  for (const m of entryText.matchAll(/"seller_?id"\s*:\s*(-?\d+)\s*[,}]/gi)) digits = m[1]!;
  return digits;
}

/** `keysWritten`: the keys in `entryText` at any depth, repeats included (0 when unknown: no repeat check). */
export function readSellerEntry(entry: Record<string, unknown>, lineNo: number, ctx: EntryContext, issue: EntryIssue, entryText = '', keysWritten = 0): Seller {
  const f = canonicalFields(
    entry,
    repeatedKeys(entry, entryText, keysWritten),
    (written, canonical) => ctx.onRenamed(written, canonical, lineNo),
    (key) => ctx.onUnknownKey(key, lineNo),
    (field, count, spellings) =>
      issue(
        'DUPLICATE_KEY',
        spellings.length === 1
          ? `${JSON.stringify(spellings[0])} is written ${count} times in this entry; the last value is kept (as JSON.parse does)`
          : `${JSON.stringify(field)} is written ${count} times in this entry (as ${spellings.map((k) => JSON.stringify(k)).join(', ')}); the last value is kept, as for a key written twice`,
      ),
  );

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
