import { normalizeDomain } from './domain-check.js';
import type { AdsTxtIssueCode } from './issue-codes.js';
import type { AdsRecord } from './types.js';

/**
 * The grammar of one ads.txt line (spec-decisions "ads.txt / app-ads.txt parsing").
 *
 * Two paths give the same result. `canonicalRecord` is the hot path: one anchored regular
 * expression (compiled to native code by V8) recognises the shape of ~97 % of real record lines
 * — 3 or 4 plain fields, DIRECT/RESELLER, optional comment — and yields the fields without
 * trimming or splitting in JavaScript; per line it was twice as fast as the scan below
 * (~140 vs ~280 ns on the corpus record lines, measured while tuning bench/adstxt.bench.ts).
 * Anything else (variables, extensions, odd whitespace, errors) takes `parseRecord`, which works
 * on the [start, end) range left after cutting the comment and trimming, and reports issues.
 */
export type RecordIssueSink = (code: AdsTxtIssueCode, message: string) => void;

/** The characters String.prototype.trim removes (ads.txt 1.1 §3.4.2: whitespace around fields is ignored). */
export function isWs(c: number): boolean {
  if (c === 32 || (c >= 9 && c <= 13)) return true;
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/**
 * Index of the `=` when the range is a variable line, else -1. ads.txt 1.1 §3.5: `<VARIABLE>` is
 * an identifier without whitespace; adsnap takes a single token of letters, digits, `_` and `-`
 * (blanks allowed before the `=`), so `a.com, 1, DIRECT; k=v` stays a record.
 */
export function variableEquals(line: string, start: number, end: number): number {
  const eq = line.indexOf('=', start);
  if (eq <= start || eq >= end) return -1;
  let i = start;
  for (; i < eq; i++) {
    const c = line.charCodeAt(i);
    const lower = c | 0x20; // folds A–Z onto a–z and nothing else into that range
    if (!((lower >= 97 && lower <= 122) || (c >= 48 && c <= 57) || c === 95 || c === 45)) break;
  }
  if (i === start) return -1;
  for (; i < eq; i++) {
    const c = line.charCodeAt(i);
    if (c !== 32 && c !== 9) return -1;
  }
  return eq;
}

/**
 * A line that is exactly `domain, account, DIRECT|RESELLER[, certification][ # comment]` with
 * blanks (space, tab) around fields, no whitespace, `,`, `;` or `#` inside them, and the
 * relationship in upper case (other spellings take the general path). For such a line the
 * general path can find no issue except an invalid domain, so the result is identical.
 * The empty group after DIRECT tells the two relationships apart without allocating a string.
 */
const CANONICAL = /^[ \t]*([A-Za-z0-9.-]+)[ \t]*,[ \t]*([^\s,;#]+)[ \t]*,[ \t]*(?:DIRECT()|RESELLER)(?:[ \t]*,[ \t]*([^\s,;#]+))?[ \t]*(?:#|$)/;

// Files list the same ad system on consecutive lines (google.com × 20, then appnexus.com × 12, …):
// remembering the last valid field #1 skips most domain checks. A pure cache, safe across parsers.
let lastRaw = '';
let lastDomain = '';

/** The record of a canonical line, or undefined when the line needs the general path. */
export function canonicalRecord(line: string, lineNo: number): AdsRecord | undefined {
  const m = CANONICAL.exec(line);
  return m === null ? undefined : recordFromMatch(m, lineNo);
}

/** The record a CANONICAL / CANONICAL_LINE match describes (groups: domain, account, DIRECT marker, cert). */
function recordFromMatch(m: RegExpExecArray, lineNo: number): AdsRecord | undefined {
  const f1 = m[1]!;
  let domain: string | null;
  if (f1 === lastRaw) {
    domain = lastDomain;
  } else {
    domain = adSystemDomain(f1, 0, f1.length);
    if (domain === null) return undefined; // INVALID_DOMAIN is reported by the general path
    lastRaw = f1;
    lastDomain = domain;
  }
  const cert = m[4];
  return {
    lineNo,
    adSystemDomain: domain,
    sellerAccountId: m[2]!,
    relationship: m[3] === undefined ? 'RESELLER' : 'DIRECT',
    certAuthorityId: cert === undefined ? null : cert,
    extension: null,
  };
}

/**
 * The same shape as CANONICAL, matched at a line start in a decoded chunk and through the
 * comment up to and including the line end (CR, LF or CRLF), so the parser can take a canonical
 * line straight from the chunk: no line string, no second scan for the line end.
 */
const CANONICAL_LINE = /[ \t]*([A-Za-z0-9.-]+)[ \t]*,[ \t]*([^\s,;#]+)[ \t]*,[ \t]*(?:DIRECT()|RESELLER)(?:[ \t]*,[ \t]*([^\s,;#]+))?[ \t]*(?:#[^\r\n]*)?(?:\r\n?|\n)/y;

/**
 * The record of the canonical line starting at `text[pos]` and ending (terminator included)
 * inside `text`, or undefined. After a record, `canonicalLineEnd()` is the index past the line end.
 */
export function canonicalLineAt(text: string, pos: number, lineNo: number): AdsRecord | undefined {
  CANONICAL_LINE.lastIndex = pos;
  const m = CANONICAL_LINE.exec(text);
  return m === null ? undefined : recordFromMatch(m, lineNo);
}

/** Index just past the line `canonicalLineAt` last recognised. */
export function canonicalLineEnd(): number {
  return CANONICAL_LINE.lastIndex;
}

// Field bounds of the current record: [start1, end1, start2, end2, …]; reused, the parser is synchronous.
const B = new Int32Array(8);

/**
 * Parses a record line (ads.txt 1.1 §3.2.2, §3.4.2, §3.4.3). Returns the record, or null when the
 * line authorizes nothing — then an error issue has been reported, so no line is dropped silently.
 */
export function parseRecord(line: string, start: number, end: number, lineNo: number, issue: RecordIssueSink): AdsRecord | null {
  // §3.4.3: extension data follows the first `;`.
  let bodyEnd = end;
  let extension: string | null = null;
  const semi = line.indexOf(';', start);
  if (semi >= 0 && semi < end) {
    bodyEnd = semi;
    let s = semi + 1;
    while (s < end && isWs(line.charCodeAt(s))) s++;
    if (s < end) extension = line.slice(s, end);
  }

  // Split on commas; §3.4.2: whitespace and tabs around each field are ignored.
  let pos = start;
  let n = 0;
  let filled = 0;
  let extra = false;
  for (;;) {
    let comma = line.indexOf(',', pos);
    if (comma < 0 || comma >= bodyEnd) comma = bodyEnd;
    let s = pos;
    let e = comma;
    while (s < e && isWs(line.charCodeAt(s))) s++;
    while (e > s && isWs(line.charCodeAt(e - 1))) e--;
    if (e > s) filled++;
    if (n < 4) {
      B[2 * n] = s;
      B[2 * n + 1] = e;
    } else if (e > s) {
      extra = true;
    }
    n++;
    if (comma >= bodyEnd) break;
    pos = comma + 1;
  }
  for (let k = n; k < 4; k++) B[2 * k] = B[2 * k + 1] = 0;

  if (filled < 3) {
    issue('TOO_FEW_FIELDS', `a record needs 3 fields (domain, account id, relationship); found ${filled}`);
    return null;
  }
  for (let k = 0; k < 3; k++) {
    if (B[2 * k] === B[2 * k + 1]) {
      issue('EMPTY_FIELD', `field ${k + 1} is empty`);
      return null;
    }
  }
  const domain = adSystemDomain(line, B[0]!, B[1]!);
  if (domain === null) {
    const f1 = line.slice(B[0]!, Math.min(B[1]!, B[0]! + 80));
    issue('INVALID_DOMAIN', `field 1 ${JSON.stringify(f1)} is not a valid domain name (RFC 1123)`);
    return null;
  }

  // §3.2.2: field #3 is case-insensitive; anything else is kept upper-cased with a warning (contract §1).
  const relationship = relationshipOf(line, B[4]!, B[5]!);
  if (relationship === null) {
    const raw = line.slice(B[4]!, B[5]!);
    const upper = raw.toUpperCase();
    issue('UNKNOWN_RELATIONSHIP', `relationship ${JSON.stringify(raw)} is neither DIRECT nor RESELLER; kept as ${upper}`);
    return finish(line, lineNo, domain, upper, extension, extra, n, issue);
  }
  return finish(line, lineNo, domain, relationship, extension, extra, n, issue);
}

const ignoreIssues: RecordIssueSink = () => {};

/**
 * True when the range (comment cut, trimmed) yields a variable or a record, warnings aside: what
 * the HTML sniffer must never count as markup. Side-effect free, so it can run before the line is
 * parsed for real.
 */
export function yieldsData(line: string, start: number, end: number): 'record' | 'variable' | null {
  if (parseRecord(line, start, end, 0, ignoreIssues) !== null) return 'record';
  return variableEquals(line, start, end) > 0 ? 'variable' : null;
}

function finish(line: string, lineNo: number, domain: string, relationship: string, extension: string | null, extra: boolean, n: number, issue: RecordIssueSink): AdsRecord {
  if (extra) issue('EXTRA_FIELDS', `${n} fields; only the first 4 are kept`);
  const sellerAccountId = line.slice(B[2]!, B[3]!);
  const certAuthorityId = B[7]! > B[6]! ? line.slice(B[6]!, B[7]!) : null;
  // §3.4.2: fields should not contain tabs or whitespace (they should be URL-encoded).
  if (hasBlank(sellerAccountId) || (certAuthorityId !== null && hasBlank(certAuthorityId))) {
    issue('WHITESPACE_IN_FIELD', 'the account id or certification id contains whitespace');
  }
  return { lineNo, adSystemDomain: domain, sellerAccountId, relationship, certAuthorityId, extension };
}

/**
 * Field #1 as a lower-cased ASCII DNS name, or null (ads.txt 1.1 §3.4.2: RFC 1123). Plain ASCII
 * names are checked in place — labels of 1–63 letters, digits and inner hyphens, at least two,
 * ≤ 253 characters, TLD not all digits — so the common case allocates one string. Anything else
 * (IDN, trailing dot, `_`, URLs) goes through the shared, cached `normalizeDomain`.
 */
function adSystemDomain(line: string, s: number, e: number): string | null {
  const len = e - s;
  let upper = false;
  let labels = 1;
  let labelLen = 0;
  let tldDigits = true;
  let prev = 46;
  if (len > 253) return null;
  for (let i = s; i < e; i++) {
    const c = line.charCodeAt(i);
    if (c >= 97 && c <= 122) tldDigits = false;
    else if (c >= 48 && c <= 57) {
      /* digit */
    } else if (c === 46) {
      if (labelLen === 0 || prev === 45) return slowDomain(line, s, e);
      labels++;
      labelLen = 0;
      tldDigits = true;
      prev = c;
      continue;
    } else if (c === 45) {
      if (labelLen === 0) return null; // a label cannot start with a hyphen
    } else if (c >= 65 && c <= 90) {
      upper = true;
      tldDigits = false;
    } else return slowDomain(line, s, e);
    if (++labelLen > 63) return null;
    prev = c;
  }
  if (labelLen === 0) return slowDomain(line, s, e); // trailing dot
  if (prev === 45 || labels < 2 || tldDigits) return null;
  const name = line.slice(s, e);
  return upper ? name.toLowerCase() : name;
}

function slowDomain(line: string, s: number, e: number): string | null {
  return normalizeDomain(line.slice(s, e));
}

/** 'DIRECT' or 'RESELLER' when the range spells one of them in any case, else null. */
function relationshipOf(line: string, s: number, e: number): string | null {
  const len = e - s;
  if (len === 6) return foldEquals(line, s, 'DIRECT') ? 'DIRECT' : null;
  if (len === 8) return foldEquals(line, s, 'RESELLER') ? 'RESELLER' : null;
  return null;
}

/** ASCII case-insensitive compare against an upper-case, letters-only word. */
function foldEquals(line: string, s: number, word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    // Clearing bit 0x20 maps a–z onto A–Z; only the two case forms of a letter map to it.
    if ((line.charCodeAt(s + i) & 0xffdf) !== word.charCodeAt(i)) return false;
  }
  return true;
}

function hasBlank(field: string): boolean {
  return field.indexOf(' ') >= 0 || field.indexOf('\t') >= 0;
}

/** The ad system domain of the placeholder record (ads.txt 1.1 §3.2.1). */
export const PLACEHOLDER_DOMAIN = 'placeholder.example.com';

/** ads.txt 1.1 §3.2.1: the placeholder record of a file that authorizes no advertising system. */
export function isPlaceholder(r: AdsRecord): boolean {
  return r.adSystemDomain === PLACEHOLDER_DOMAIN && r.sellerAccountId.toLowerCase() === 'placeholder';
}
