import { MAX_IDENTIFIERS, type ListFileHeader, type ListFileIssueCode } from './types.js';

/**
 * The parent object's members, the same in sellers.json 1.0 and buyers.json 1.0: each read into
 * the header, a value of the wrong type kept as written with an issue.
 */

/** Parent keys as real files spell them, folded (lower case; no `_`, `-`, space) → the spec's names. */
const PARENT_KEYS: Record<string, string> = {
  contactemail: 'contact_email',
  contactaddress: 'contact_address',
  version: 'version',
  identifiers: 'identifiers',
  ext: 'ext',
  // Seen in real files (corpus/sellers/admaru.com.json): kept, with a NONSTANDARD_KEY warning.
  email: 'contact_email',
  address: 'contact_address',
};

/** The spec's name of a parent key (`contactEmail` → `contact_email`; `Sellers` → `sellers` for listKey 'sellers'). */
export function canonicalParentKey(key: string, listKey: string): string {
  const folded = key.replace(/[_\-\s]/g, '').toLowerCase();
  return folded === listKey ? listKey : (PARENT_KEYS[folded] ?? key);
}

export const emptyHeader = (): ListFileHeader => ({ version: null, contactEmail: null, contactAddress: null, identifiers: [], ext: null });

export type HeaderIssue = (code: ListFileIssueCode, message: string, withValue: boolean) => void;

/** Reads one parent member (already parsed) into `h`; false when `canonical` is no header field. */
export function readHeaderMember(h: ListFileHeader, canonical: string, value: unknown, valueText: string, issue: HeaderIssue): boolean {
  switch (canonical) {
    case 'version':
      if (typeof value === 'string') h.version = value;
      else if (typeof value === 'number') {
        // Keep the number as written ("1.0", not 1) so analysts see what the file said.
        h.version = valueText.trim();
        issue('VERSION_NOT_STRING', `version should be a string, found the number ${h.version}`, false);
      } else issue('INVALID_FIELD_TYPE', 'version should be a string', true);
      return true;
    case 'contact_email':
    case 'contact_address': {
      const s = typeof value === 'string' ? value : value === null ? null : JSON.stringify(value);
      if (value !== null && typeof value !== 'string') issue('INVALID_FIELD_TYPE', `${canonical} should be a string`, true);
      if (canonical === 'contact_email') h.contactEmail = s;
      else h.contactAddress = s;
      return true;
    }
    case 'identifiers':
      if (!Array.isArray(value)) issue('INVALID_FIELD_TYPE', 'identifiers should be an array', true);
      else readIdentifiers(h, value, issue);
      return true;
    case 'ext':
      // Kept as JSON text (the member's size is already bounded by the scanner).
      h.ext = JSON.stringify(value);
      return true;
    default:
      return false;
  }
}

/** Kept up to MAX_IDENTIFIERS; the cut is an issue, never silent. */
function readIdentifiers(h: ListFileHeader, value: unknown[], issue: HeaderIssue): void {
  for (const id of value) {
    if (h.identifiers.length >= MAX_IDENTIFIERS) {
      issue('VALUE_TOO_LARGE', `more than ${MAX_IDENTIFIERS} identifiers: the rest are not kept`, false);
      return;
    }
    const o = (id ?? {}) as Record<string, unknown>;
    h.identifiers.push({ name: o.name == null ? null : String(o.name), value: o.value == null ? null : String(o.value) });
  }
}
