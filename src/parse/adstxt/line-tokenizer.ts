import { normalizeDomain } from './domain-check.js';
import type { AdsTxtIssueCode } from './issue-codes.js';
import type { AdsRecord } from './types.js';

/**
 * The grammar of one ads.txt line, after the comment is cut and the line trimmed
 * (spec-decisions "ads.txt / app-ads.txt parsing"). Hot path: charCode scans and native
 * indexOf/split instead of regular expressions.
 */
export type RecordIssueSink = (code: AdsTxtIssueCode, message: string) => void;

/**
 * Index of the `=` when the line is a variable, else -1. ads.txt 1.1 §3.5: `<VARIABLE>` is a
 * string identifier without whitespace; adsnap takes a single token of letters, digits, `_`
 * and `-` (spaces allowed before the `=`), so `a.com, 1, DIRECT; k=v` stays a record.
 */
export function variableEquals(content: string): number {
  const eq = content.indexOf('=');
  if (eq <= 0) return -1;
  let i = 0;
  for (; i < eq; i++) {
    const c = content.charCodeAt(i);
    const lower = c | 0x20; // folds A–Z onto a–z and nothing else into that range
    const isToken = (lower >= 97 && lower <= 122) || (c >= 48 && c <= 57) || c === 95 || c === 45;
    if (!isToken) break;
  }
  if (i === 0) return -1;
  for (; i < eq; i++) {
    const c = content.charCodeAt(i);
    if (c !== 32 && c !== 9) return -1;
  }
  return eq;
}

const PLACEHOLDER_DOMAIN = 'placeholder.example.com';

/**
 * Parses a record line (ads.txt 1.1 §3.2.2, §3.4.2, §3.4.3). Returns the record, or null when the
 * line authorizes nothing — then an error issue has been reported, so no line is dropped silently.
 */
export function parseRecord(content: string, lineNo: number, issue: RecordIssueSink): AdsRecord | null {
  // §3.4.3: extension data follows the first `;`.
  let body = content;
  let extension: string | null = null;
  const semi = content.indexOf(';');
  if (semi >= 0) {
    body = content.slice(0, semi);
    const ext = content.slice(semi + 1).trim();
    if (ext !== '') extension = ext;
  }

  const parts = body.split(',');
  const n = parts.length;
  // §3.4.2: whitespace and tabs around fields are ignored.
  const f1 = parts[0]!.trim();
  const f2 = n > 1 ? parts[1]!.trim() : '';
  const f3 = n > 2 ? parts[2]!.trim() : '';
  const f4 = n > 3 ? parts[3]!.trim() : '';
  let filled = (f1 !== '' ? 1 : 0) + (f2 !== '' ? 1 : 0) + (f3 !== '' ? 1 : 0) + (f4 !== '' ? 1 : 0);
  let extra = false;
  for (let i = 4; i < n; i++) {
    if (parts[i]!.trim() !== '') {
      filled++;
      extra = true;
    }
  }

  if (filled < 3) {
    issue('TOO_FEW_FIELDS', `a record needs 3 fields (domain, account id, relationship); found ${filled}`);
    return null;
  }
  if (f1 === '' || f2 === '' || f3 === '') {
    const which = f1 === '' ? 1 : f2 === '' ? 2 : 3;
    issue('EMPTY_FIELD', `field ${which} is empty`);
    return null;
  }
  const domain = normalizeDomain(f1);
  if (domain === null) {
    issue('INVALID_DOMAIN', `field 1 ${JSON.stringify(f1.length > 80 ? f1.slice(0, 80) + '…' : f1)} is not a valid domain name (RFC 1123)`);
    return null;
  }

  // §3.2.2 field #3 is case-insensitive; anything else is kept upper-cased with a warning (contract §1).
  let relationship = f3;
  if (f3 !== 'DIRECT' && f3 !== 'RESELLER') {
    relationship = f3.toUpperCase();
    if (relationship !== 'DIRECT' && relationship !== 'RESELLER') {
      issue('UNKNOWN_RELATIONSHIP', `relationship ${JSON.stringify(f3)} is neither DIRECT nor RESELLER; kept as ${relationship}`);
    }
  }
  if (extra) issue('EXTRA_FIELDS', `${n} fields; only the first 4 are kept`);
  // §3.4.2: fields should not contain tabs or whitespace (they should be URL-encoded).
  if (hasBlank(f2) || hasBlank(f4)) issue('WHITESPACE_IN_FIELD', 'the account id or certification id contains whitespace');

  return { lineNo, adSystemDomain: domain, sellerAccountId: f2, relationship, certAuthorityId: f4 === '' ? null : f4, extension };
}

/** ads.txt 1.1 §3.2.1: the placeholder record of a file that authorizes no advertising system. */
export function isPlaceholder(r: AdsRecord): boolean {
  return r.adSystemDomain === PLACEHOLDER_DOMAIN && r.sellerAccountId.toLowerCase() === 'placeholder';
}

function hasBlank(s: string): boolean {
  return s.indexOf(' ') >= 0 || s.indexOf('\t') >= 0;
}
