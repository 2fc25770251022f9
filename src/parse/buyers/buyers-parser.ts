import { CompactStringSet } from '../../util/compact-string-set.js';
import { JsonArrayScanner } from '../sellers/json-array-scanner.js';
import { MAX_IDENTIFIERS, type SellersIdentifier } from '../sellers/types.js';
import { BUYERS_ISSUE_CODES, type Buyer, type BuyersIssue, type BuyersIssueCode, type BuyersStatus, type BuyersSummary } from './types.js';

export interface BuyersJsonHandler {
  onBuyer?(buyer: Buyer): void;
  onIssue?(issue: BuyersIssue): void;
}

const BUYER_KEYS = new Set(['buyer_id', 'buyer_type', 'is_confidential', 'name', 'domain', 'comment', 'ext']);
/** Issues listed per code; more are counted in one MORE_ISSUES_NOT_LISTED (as for sellers.json). */
const MAX_ISSUES_PER_CODE = 100;

/**
 * Streaming buyers.json parser, on the sellers.json scanner (src/parse/sellers/json-array-scanner.ts):
 * one `buyers[]` entry in memory at a time, each handed to `onBuyer` as it closes. Never throws
 * on bad input: broken JSON, HTML and other documents become a status and issues with stable codes.
 */
export class BuyersJsonParser {
  private readonly scanner: JsonArrayScanner;
  private readonly counts = new Map<BuyersIssueCode, number>();
  private readonly seenIds = new CompactStringSet();
  private readonly unknownKeys = new Set<string>();
  private buyers = 0;
  private errors = 0;
  private warnings = 0;
  private sawArray = false;
  private notArray = false;
  private syntaxError = false;
  private notObject: 'array' | 'html' | 'other' | null = null;
  private sawVersion = false;
  private bytes = 0;
  private readonly header: Omit<BuyersSummary, 'status' | 'buyers' | 'errors' | 'warnings'> = { version: null, contactEmail: null, contactAddress: null, identifiers: [], ext: null };

  constructor(private readonly handler: BuyersJsonHandler = {}) {
    this.scanner = new JsonArrayScanner(
      {
        isStreamedKey: (key) => key === 'buyers',
        onNotObject: (kind, lineNo) => {
          this.notObject = kind;
          if (kind === 'html') this.issue('HTML_BODY', 'the body is an HTML page, not buyers.json', lineNo);
          else if (kind === 'array') this.issue('NOT_AN_OBJECT', 'the document is a JSON array; buyers.json is an object with a "buyers" array', lineNo);
          else this.issue('INVALID_JSON', 'the body does not start with a JSON object', lineNo);
        },
        onMember: (key, value, lineNo) => this.onMember(key, value, lineNo),
        onArrayStart: () => (this.sawArray = true),
        onElement: (text, lineNo, tooLarge) => this.onElement(text, lineNo, tooLarge),
        onSyntaxError: (message, lineNo, recovered) => {
          this.syntaxError = true;
          this.issue('INVALID_JSON', recovered ? `${message} (reading on)` : message, lineNo);
        },
        onUtf16: (encoding) => this.issue('UTF16_ENCODING', `the body is ${encoding.toUpperCase()}; decoded, but UTF-8 is expected (RFC 8259 §8.1)`, null),
      },
      { arrayKey: 'buyers' },
    );
  }

  push(chunk: Uint8Array): void {
    this.bytes += chunk.length;
    this.scanner.push(chunk);
  }

  end(): BuyersSummary {
    const nothing = this.scanner.sawNothing;
    this.scanner.end();
    const status = this.status(nothing);
    if (this.notObject === null && !nothing && !this.sawVersion && status !== 'invalid_json') this.issue('MISSING_VERSION', 'the document has no "version"', null);
    for (const [code, n] of this.counts) {
      if (n > MAX_ISSUES_PER_CODE) this.emit({ lineNo: null, severity: 'info', code: 'MORE_ISSUES_NOT_LISTED', message: `${n - MAX_ISSUES_PER_CODE} more ${code} issues not listed (${n} in all)`, lineText: null });
    }
    return { status, buyers: this.buyers, errors: this.errors, warnings: this.warnings, ...this.header };
  }

  private status(nothing: boolean): BuyersStatus {
    if (this.notObject === 'html') return 'html';
    if (nothing) {
      this.issue('EMPTY_FILE', this.bytes === 0 ? 'the body is empty' : 'the body holds only whitespace', null);
      return 'empty';
    }
    if (this.syntaxError || this.notObject === 'other') return 'invalid_json';
    if (!this.sawArray) {
      if (this.notObject === null && !this.notArray) this.issue('MISSING_BUYERS', 'the document has no "buyers" array', null);
      return 'not_buyers_json';
    }
    return this.buyers === 0 ? 'empty' : 'ok';
  }

  private onMember(key: string, text: string, lineNo: number): void {
    if (text === '') return this.issue('VALUE_TOO_LARGE', `the value of "${key}" is too large and was skipped`, lineNo);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.syntaxError = true;
      return this.issue('INVALID_JSON', `the value of "${key}" is not valid JSON`, lineNo, text);
    }
    const h = this.header;
    if (key === 'version') {
      this.sawVersion = true;
      h.version = typeof value === 'string' ? value : typeof value === 'number' ? text.trim() : null;
      if (typeof value !== 'string') this.issue('INVALID_FIELD_TYPE', 'version should be a string', lineNo, text);
    } else if (key === 'contact_email' || key === 'contact_address') {
      const v = stringOrNull(value, () => this.issue('INVALID_FIELD_TYPE', `${key} should be a string`, lineNo, text));
      if (key === 'contact_email') h.contactEmail = v;
      else h.contactAddress = v;
    } else if (key === 'identifiers') {
      if (!Array.isArray(value)) return this.issue('INVALID_FIELD_TYPE', 'identifiers should be an array', lineNo, text);
      h.identifiers = value.slice(0, MAX_IDENTIFIERS).map(identifier);
    } else if (key === 'ext') h.ext = JSON.stringify(value);
    else if (key === 'buyers') {
      this.notArray = true;
      this.issue('BUYERS_NOT_ARRAY', `"buyers" should be an array, found ${value === null ? 'null' : typeof value}`, lineNo, text);
    }
  }

  private onElement(text: string, lineNo: number, tooLarge: boolean): void {
    if (tooLarge) return this.issue('VALUE_TOO_LARGE', 'a buyers entry is too large and was skipped', lineNo);
    let entry: unknown;
    try {
      entry = JSON.parse(text);
    } catch (err) {
      this.syntaxError = true;
      return this.issue('INVALID_JSON', `a buyers entry is not valid JSON: ${(err as Error).message}`, lineNo, text);
    }
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return this.issue('BUYER_NOT_OBJECT', 'a buyers entry should be an object', lineNo, text);
    const e = entry as Record<string, unknown>;
    for (const k of Object.keys(e)) {
      if (!BUYER_KEYS.has(k) && !this.unknownKeys.has(k)) {
        if (this.unknownKeys.size < 1000) this.unknownKeys.add(k);
        this.issue('UNKNOWN_KEY', `${JSON.stringify(k)} is not a buyers.json 1.0 buyer field (extensions belong in "ext"); not read`, lineNo);
      }
    }
    const bad = (field: string) => this.issue('INVALID_FIELD_TYPE', `${field} should be a string`, lineNo, text);
    const id = e.buyer_id === undefined || e.buyer_id === null ? null : typeof e.buyer_id === 'number' ? String(e.buyer_id) : stringOrNull(e.buyer_id, () => bad('buyer_id'));
    if (id === null || id.trim() === '') this.issue('MISSING_BUYER_ID', 'a buyer has no buyer_id', lineNo, text);
    else if (!this.seenIds.add(id.trim())) this.issue('DUPLICATE_BUYER_ID', `buyer_id ${JSON.stringify(id.trim())} is listed more than once`, lineNo, text);
    const conf = e.is_confidential;
    const buyer: Buyer = {
      buyerId: id === null ? null : id.trim(),
      buyerType: trimmed(stringOrNull(e.buyer_type, () => bad('buyer_type'))),
      name: trimmed(stringOrNull(e.name, () => bad('name'))),
      domain: trimmed(stringOrNull(e.domain, () => bad('domain')))?.toLowerCase() ?? null,
      isConfidential: conf === 1 || conf === true ? true : conf === 0 || conf === false ? false : null,
      comment: stringOrNull(e.comment, () => bad('comment')),
      lineNo,
    };
    this.buyers++;
    this.handler.onBuyer?.(buyer);
  }

  private issue(code: BuyersIssueCode, message: string, lineNo: number | null, entryText: string | null = null): void {
    const severity = BUYERS_ISSUE_CODES[code];
    if (severity === 'error') this.errors++;
    else if (severity === 'warning') this.warnings++;
    const n = (this.counts.get(code) ?? 0) + 1;
    this.counts.set(code, n);
    if (n <= MAX_ISSUES_PER_CODE) this.emit({ lineNo, severity, code, message, lineText: entryText === null ? null : entryText.slice(0, 2048).replace(/\s+/g, ' ').trim().slice(0, 256) });
  }

  private emit(issue: BuyersIssue): void {
    this.handler.onIssue?.(issue);
  }
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

function identifier(id: unknown): SellersIdentifier {
  const o = (id ?? {}) as Record<string, unknown>;
  return { name: o.name == null ? null : String(o.name), value: o.value == null ? null : String(o.value) };
}
