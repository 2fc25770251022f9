import { CompactStringSet } from '../../util/compact-string-set.js';
import { JsonArrayScanner } from './json-array-scanner.js';
import { canonicalSellerKey, readSellerEntry, type EntryContext } from './seller-entry.js';
import {
  MAX_IDENTIFIERS,
  SELLERS_ISSUE_CODES,
  type Seller,
  type SellersIdentifier,
  type SellersIssue,
  type SellersIssueCode,
  type SellersStatus,
  type SellersSummary,
} from './types.js';

export interface SellersJsonHandler {
  onSeller?(seller: Seller): void;
  onIssue?(issue: SellersIssue): void;
}

export interface SellersJsonParserOptions {
  /**
   * Issues listed per code; further ones are only counted, and one MORE_ISSUES_NOT_LISTED
   * info per code says how many were left out (a 2M-entry file with one systematic defect
   * would otherwise produce 2M identical rows). @default 100
   */
  maxIssuesPerCode?: number;
  /** Longest single entry kept, in characters. @default 1 MiB */
  maxEntryChars?: number;
}

// Parent object keys as real files spell them → sellers.json 1.0 names.
const PARENT_KEYS: Record<string, string> = {
  contactemail: 'contact_email',
  contactaddress: 'contact_address',
  version: 'version',
  identifiers: 'identifiers',
  sellers: 'sellers',
  ext: 'ext',
  // Seen in real files (corpus/sellers/admaru.com.json): kept, with a NONSTANDARD_KEY warning.
  email: 'contact_email',
  address: 'contact_address',
};

/** Distinct unknown seller keys remembered per file (UNKNOWN_KEY is noted once per key). */
const MAX_NOTED_KEYS = 1000;

const canonicalParentKey = (key: string) => PARENT_KEYS[key.replace(/[_\-\s]/g, '').toLowerCase()] ?? key;

/**
 * Streaming sellers.json parser (IAB Tech Lab sellers.json 1.0). Push the body's bytes in any
 * chunking; each seller is handed to `onSeller` as soon as its entry closes, issues to
 * `onIssue`, and `end()` returns the file's summary. Memory holds one entry at a time plus the
 * set of seller ids (for duplicate detection). Never throws on bad input: broken JSON, HTML
 * and non-sellers documents become a status and issues with stable codes.
 */
export class SellersJsonParser {
  private readonly scanner: JsonArrayScanner;
  private readonly maxIssuesPerCode: number;
  private readonly issueCounts = new Map<SellersIssueCode, number>();
  private readonly renamed = new Set<string>();
  private readonly unknownKeys = new Set<string>();
  private readonly ctx: EntryContext;
  private sellers = 0;
  private errors = 0;
  private warnings = 0;
  private infos = 0;
  private sawSellersArray = false;
  private sellersNotArray = false;
  private singleSellerObject = false;
  private syntaxError = false;
  private notObject: 'array' | 'html' | 'other' | null = null;
  private version: string | null = null;
  private sawVersion = false;
  private contactEmail: string | null = null;
  private contactAddress: string | null = null;
  private identifiers: SellersIdentifier[] = [];
  private ext: string | null = null;
  private bytes = 0;
  private ended: SellersSummary | null = null;

  constructor(
    private readonly handler: SellersJsonHandler = {},
    options: SellersJsonParserOptions = {},
  ) {
    this.maxIssuesPerCode = options.maxIssuesPerCode ?? 100;
    this.ctx = {
      seenIds: new CompactStringSet(),
      onRenamed: (written, canonical, lineNo) => this.noteRenamed(written, canonical, lineNo),
      onUnknownKey: (key, lineNo) => this.noteUnknownKey(key, lineNo),
    };
    this.scanner = new JsonArrayScanner(
      {
        isStreamedKey: (key) => canonicalParentKey(key) === 'sellers',
        onNotObject: (kind, lineNo) => this.onNotObject(kind, lineNo),
        onMember: (key, value, lineNo) => this.onMember(key, value, lineNo),
        onArrayStart: (key, lineNo) => {
          this.sawSellersArray = true;
          this.noteRenamed(key, 'sellers', lineNo);
        },
        onElement: (textValue, lineNo, tooLarge, keysWritten) => this.onElement(textValue, lineNo, tooLarge, keysWritten),
        onSyntaxError: (message, lineNo, recovered) => {
          this.syntaxError = true;
          this.issue('INVALID_JSON', recovered ? `${message} (reading on)` : message, lineNo, null);
        },
        onUtf16: (encoding, by) =>
          this.issue('UTF16_ENCODING', `the body is ${encoding.toUpperCase()} (${by === 'bom' ? 'by its BOM' : 'no BOM; by the NUL octets of its first characters'}); decoded, but UTF-8 is expected (RFC 8259 §8.1)`, null, null),
      },
      { maxValueChars: options.maxEntryChars },
    );
  }

  push(chunk: Uint8Array): void {
    this.bytes += chunk.length;
    this.scanner.push(chunk);
  }

  /** Pushes already-decoded text (tests, strings in memory). */
  pushText(textValue: string): void {
    this.bytes += textValue.length;
    this.scanner.pushText(textValue);
  }

  end(): SellersSummary {
    if (this.ended) return this.ended;
    const nothing = this.scanner.sawNothing;
    this.scanner.end();
    let status: SellersStatus;
    if (this.notObject === 'html') status = 'html';
    else if (nothing) {
      status = 'empty';
      this.issue('EMPTY_FILE', this.bytes === 0 ? 'the body is empty' : 'the body holds only whitespace', null, null);
    } else if (this.syntaxError || (this.notObject === 'other')) status = 'invalid_json';
    else if (!this.sawSellersArray) {
      status = 'not_sellers_json';
      if (this.notObject === null && !this.sellersNotArray) this.issue(
          'MISSING_SELLERS',
          this.singleSellerObject ? 'the document is a single seller object (publisher-side), not a sellers.json with a "sellers" array' : 'the document has no "sellers" array',
          null,
          null,
        );
    } else status = this.sellers === 0 ? 'empty' : 'ok';
    if (this.notObject === null && !nothing && !this.sawVersion && status !== 'invalid_json') {
      this.issue('MISSING_VERSION', 'the document has no "version"', null, null);
    }
    for (const [code, count] of this.issueCounts) {
      if (count > this.maxIssuesPerCode) {
        this.emit({ lineNo: null, severity: 'info', code: 'MORE_ISSUES_NOT_LISTED', message: `${count - this.maxIssuesPerCode} more ${code} issues not listed (${count} in all)`, lineText: null });
      }
    }
    this.ended = {
      status,
      sellers: this.sellers,
      errors: this.errors,
      warnings: this.warnings,
      infos: this.infos,
      version: this.version,
      contactEmail: this.contactEmail,
      contactAddress: this.contactAddress,
      identifiers: this.identifiers,
      ext: this.ext,
    };
    return this.ended;
  }

  private onNotObject(kind: 'array' | 'html' | 'other', lineNo: number): void {
    this.notObject = kind;
    if (kind === 'html') this.issue('HTML_BODY', 'the body is an HTML page, not sellers.json', lineNo, null);
    else if (kind === 'array') this.issue('NOT_AN_OBJECT', 'the document is a JSON array; sellers.json is an object with a "sellers" array', lineNo, null);
    else this.issue('INVALID_JSON', 'the body does not start with a JSON object', lineNo, null);
  }

  private onMember(key: string, valueText: string, lineNo: number): void {
    const canonical = canonicalParentKey(key);
    this.noteRenamed(key, canonical, lineNo);
    if (valueText === '') {
      this.issue('VALUE_TOO_LARGE', `the value of "${key}" is too large and was skipped`, lineNo, null);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(valueText);
    } catch {
      this.syntaxError = true;
      this.issue('INVALID_JSON', `the value of "${key}" is not valid JSON`, lineNo, valueText);
      return;
    }
    switch (canonical) {
      case 'version':
        this.sawVersion = true;
        if (typeof value === 'string') this.version = value;
        else if (typeof value === 'number') {
          // Keep the number as written ("1.0", not 1) so analysts see what the file said.
          this.version = valueText.trim();
          this.issue('VERSION_NOT_STRING', `version should be a string, found the number ${this.version}`, lineNo, null);
        } else this.issue('INVALID_FIELD_TYPE', 'version should be a string', lineNo, valueText);
        break;
      case 'contact_email':
      case 'contact_address': {
        const s = typeof value === 'string' ? value : value === null ? null : JSON.stringify(value);
        if (value !== null && typeof value !== 'string') this.issue('INVALID_FIELD_TYPE', `${canonical} should be a string`, lineNo, valueText);
        if (canonical === 'contact_email') this.contactEmail = s;
        else this.contactAddress = s;
        break;
      }
      case 'identifiers':
        if (!Array.isArray(value)) this.issue('INVALID_FIELD_TYPE', 'identifiers should be an array', lineNo, valueText);
        else {
          for (const id of value) {
            if (this.identifiers.length >= MAX_IDENTIFIERS) {
              this.issue('VALUE_TOO_LARGE', `more than ${MAX_IDENTIFIERS} identifiers: the rest are not kept`, lineNo, null);
              break;
            }
            const o = (id ?? {}) as Record<string, unknown>;
            this.identifiers.push({ name: o.name == null ? null : String(o.name), value: o.value == null ? null : String(o.value) });
          }
        }
        break;
      case 'sellers':
        this.sellersNotArray = true;
        this.issue('SELLERS_NOT_ARRAY', `"sellers" should be an array, found ${value === null ? 'null' : typeof value}`, lineNo, valueText);
        break;
      case 'ext':
        // Kept as JSON text (the member's size is already bounded by the scanner).
        this.ext = JSON.stringify(value);
        break;
      default:
        // Unknown members are allowed; seller fields here mean a single seller object.
        if (canonicalSellerKey(key) === 'seller_id') this.singleSellerObject = true;
        break;
    }
  }

  private onElement(textValue: string, lineNo: number, tooLarge: boolean, keysWritten: number): void {
    if (tooLarge) {
      this.issue('VALUE_TOO_LARGE', 'a sellers entry is too large and was skipped', lineNo, null);
      return;
    }
    let entry: unknown;
    try {
      entry = JSON.parse(textValue);
    } catch (err) {
      this.syntaxError = true;
      this.issue('INVALID_SELLER_JSON', `a sellers entry is not valid JSON: ${(err as Error).message}`, lineNo, textValue);
      return;
    }
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      this.issue('SELLER_NOT_OBJECT', `a sellers entry should be an object, found ${Array.isArray(entry) ? 'an array' : entry === null ? 'null' : typeof entry}`, lineNo, textValue);
      return;
    }
    const seller = readSellerEntry(entry as Record<string, unknown>, lineNo, this.ctx, (code, message) => this.issue(code, message, lineNo, textValue), textValue, keysWritten);
    this.sellers++;
    this.handler.onSeller?.(seller);
  }

  /** A key written differently from the spec (camelCase, other case) is noted once per file. */
  private noteRenamed(written: string, canonical: string, lineNo: number | null): void {
    if (written === canonical || this.renamed.has(written)) return;
    this.renamed.add(written);
    this.issue('NONSTANDARD_KEY', `"${written}" should be written "${canonical}"`, lineNo, null);
  }

  /**
   * A key that is no Seller field, noted once per file: a file that adds a field adds it to every
   * entry, and one issue naming it says as much. The set is capped against files of random keys;
   * past the cap a key is counted each time it appears.
   */
  private noteUnknownKey(key: string, lineNo: number): void {
    if (this.unknownKeys.has(key)) return;
    if (this.unknownKeys.size < MAX_NOTED_KEYS) this.unknownKeys.add(key);
    this.issue('UNKNOWN_KEY', `${JSON.stringify(key)} is not a sellers.json 1.0 seller field (extensions belong in "ext"); not read`, lineNo, null);
  }

  private issue(code: SellersIssueCode, message: string, lineNo: number | null, entryText: string | null): void {
    const severity = SELLERS_ISSUE_CODES[code];
    if (severity === 'error') this.errors++;
    else if (severity === 'warning') this.warnings++;
    else this.infos++;
    const n = (this.issueCounts.get(code) ?? 0) + 1;
    this.issueCounts.set(code, n);
    if (n > this.maxIssuesPerCode) return;
    this.emit({ lineNo, severity, code, message, lineText: entryText === null ? null : compact(entryText) });
  }

  private emit(issue: SellersIssue): void {
    this.handler.onIssue?.(issue);
  }
}

/** An entry as one line of at most 256 characters (parse_issues.line_text). */
function compact(s: string): string {
  const one = s.length > 2048 ? s.slice(0, 2048) : s;
  return one.replace(/\s+/g, ' ').trim().slice(0, 256);
}
