import { CompactStringSet } from '../../util/compact-string-set.js';
import { canonicalFields, canonicalKey, type EntryKeyEvents, type EntryKeys } from './entry-keys.js';
import { canonicalParentKey, emptyHeader, readHeaderMember } from './header.js';
import { JsonArrayScanner } from './scanner.js';
import type { ListFileCounts, ListFileHeader, ListFileIssueCode, ListFileStatus, ListIssue, Severity } from './types.js';

/**
 * A file kind as the one parser reads it: its list, its entry fields and its own issue codes.
 * `C` is the kind's whole code list (the shared LIST_FILE_ISSUE_CODES included).
 */
export interface ListFileKind<E, C extends string, NotList extends string> {
  /** 'sellers.json', in messages. */
  file: string;
  /** The array member's key ('sellers'), matched in any spelling that folds onto it. */
  listKey: string;
  /** One entry, in messages ('seller'). */
  noun: string;
  codes: Readonly<Record<C, Severity>>;
  /** Valid JSON without the list. */
  notListStatus: NotList;
  /** The kind's codes for: no list; the list member not an array; an entry that is not JSON; one that is no object. */
  missingList: C;
  listNotArray: C;
  entryNotJson: C;
  entryNotObject: C;
  keys: EntryKeys;
  /** The entry's id field: at the top level it says the document is one entry, not a list. */
  idKey: string;
  /** Reads one entry's fields (canonical names) into the kind's row; issues through `ctx`. */
  readEntry(fields: Record<string, unknown>, ctx: EntryContext<C>): E;
}

export interface EntryContext<C extends string> {
  lineNo: number;
  /** The entry as written ('' when unknown). */
  text: string;
  /** Ids seen so far in this file (duplicate detection). */
  seenIds: CompactStringSet;
  issue(code: C, message: string): void;
}

export interface ListFileHandler<E, C extends string> {
  onEntry?(entry: E): void;
  onIssue?(issue: ListIssue<C>): void;
}

export interface ListFileParserOptions {
  /**
   * Issues listed per code; further ones are only counted, and one MORE_ISSUES_NOT_LISTED
   * info per code says how many were left out (a 2M-entry file with one systematic defect
   * would otherwise produce 2M identical rows). @default 100
   */
  maxIssuesPerCode?: number;
  /** Longest single entry kept, in characters. @default 1 MiB */
  maxEntryChars?: number;
}

export interface ListFileSummary<NotList extends string> extends ListFileHeader, ListFileCounts {
  status: ListFileStatus<NotList>;
  entries: number;
}

/** Distinct unknown entry keys remembered per file (UNKNOWN_KEY is noted once per key). */
const MAX_NOTED_KEYS = 1000;

/**
 * Streaming parser of a JSON list file (sellers.json 1.0, buyers.json 1.0). Push the body's bytes
 * in any chunking; each entry is handed to `onEntry` as soon as it closes, issues to `onIssue`,
 * and `end()` (each kind's subclass) returns the file's summary. Memory holds one entry at a time plus the set of ids
 * (duplicate detection). Never throws on bad input: broken JSON, HTML and other documents
 * become a status and issues with stable codes.
 */
export abstract class JsonListFileParser<E, C extends string, NotList extends string> {
  private readonly scanner: JsonArrayScanner;
  private readonly maxIssuesPerCode: number;
  private readonly issueCounts = new Map<C, number>();
  private readonly renamed = new Set<string>();
  private readonly unknownKeys = new Set<string>();
  private readonly seenIds = new CompactStringSet();
  private readonly header = emptyHeader();
  private readonly counts: ListFileCounts = { errors: 0, warnings: 0, infos: 0 };
  private entries = 0;
  private sawList = false;
  private listNotArray = false;
  private singleEntryObject = false;
  private syntaxError = false;
  private notObject: 'array' | 'html' | 'other' | null = null;
  private sawVersion = false;
  private bytes = 0;
  private ended: ListFileSummary<NotList> | null = null;
  private readonly entryCtx: EntryContext<C> = {
    lineNo: 0,
    text: '',
    seenIds: this.seenIds,
    issue: (code, message) => this.issue(code, message, this.entryCtx.lineNo, this.entryCtx.text),
  };
  private readonly keyEvents: EntryKeyEvents = {
    onRenamed: (written, canonical) => this.noteRenamed(written, canonical, this.entryCtx.lineNo),
    onUnknown: (key) => this.noteUnknownKey(key, this.entryCtx.lineNo),
    onRepeated: (message) => this.shared('DUPLICATE_KEY', message, this.entryCtx.lineNo, this.entryCtx.text),
  };

  protected constructor(
    private readonly kind: ListFileKind<E, C, NotList>,
    private readonly handler: ListFileHandler<E, C>,
    options: ListFileParserOptions,
  ) {
    this.maxIssuesPerCode = options.maxIssuesPerCode ?? 100;
    const listKey = kind.listKey;
    this.scanner = new JsonArrayScanner(
      {
        isStreamedKey: (key) => canonicalParentKey(key, listKey) === listKey,
        onNotObject: (what, lineNo) => this.onNotObject(what, lineNo),
        onMember: (key, value, lineNo) => this.onMember(key, value, lineNo),
        onArrayStart: (key, lineNo) => {
          this.sawList = true;
          this.noteRenamed(key, listKey, lineNo);
        },
        onElement: (text, lineNo, tooLarge, keysWritten) => this.onElement(text, lineNo, tooLarge, keysWritten),
        onSyntaxError: (message, lineNo, recovered) => {
          this.syntaxError = true;
          this.shared('INVALID_JSON', recovered ? `${message} (reading on)` : message, lineNo, null);
        },
        onUtf16: (encoding, by) =>
          this.shared('UTF16_ENCODING', `the body is ${encoding.toUpperCase()} (${by === 'bom' ? 'by its BOM' : 'no BOM; by the NUL octets of its first characters'}); decoded, but UTF-8 is expected (RFC 8259 §8.1)`, null, null),
      },
      { maxValueChars: options.maxEntryChars, arrayKey: listKey },
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

  /** Ends the input and returns the summary (each kind's `end()` names its count: `sellers`, `buyers`). */
  protected endList(): ListFileSummary<NotList> {
    if (this.ended) return this.ended;
    const nothing = this.scanner.sawNothing;
    this.scanner.end();
    const status = this.status(nothing);
    if (this.notObject === null && !nothing && !this.sawVersion && status !== 'invalid_json') {
      this.shared('MISSING_VERSION', 'the document has no "version"', null, null);
    }
    for (const [code, count] of this.issueCounts) {
      if (count > this.maxIssuesPerCode) {
        this.emit({ lineNo: null, severity: 'info', code: 'MORE_ISSUES_NOT_LISTED' as C, message: `${count - this.maxIssuesPerCode} more ${code} issues not listed (${count} in all)`, lineText: null });
      }
    }
    this.ended = { status, entries: this.entries, ...this.counts, ...this.header };
    return this.ended;
  }

  private status(nothing: boolean): ListFileStatus<NotList> {
    const k = this.kind;
    if (this.notObject === 'html') return 'html';
    if (nothing) {
      this.shared('EMPTY_FILE', this.bytes === 0 ? 'the body is empty' : 'the body holds only whitespace', null, null);
      return 'empty';
    }
    if (this.syntaxError || this.notObject === 'other') return 'invalid_json';
    if (!this.sawList) {
      if (this.notObject === null && !this.listNotArray) {
        const message = this.singleEntryObject ? `the document is a single ${k.noun} object, not a ${k.file} with a "${k.listKey}" array` : `the document has no "${k.listKey}" array`;
        this.issue(k.missingList, message, null, null);
      }
      return k.notListStatus;
    }
    return this.entries === 0 ? 'empty' : 'ok';
  }

  private onNotObject(what: 'array' | 'html' | 'other', lineNo: number): void {
    this.notObject = what;
    const k = this.kind;
    if (what === 'html') this.shared('HTML_BODY', `the body is an HTML page, not ${k.file}`, lineNo, null);
    else if (what === 'array') this.shared('NOT_AN_OBJECT', `the document is a JSON array; ${k.file} is an object with a "${k.listKey}" array`, lineNo, null);
    else this.shared('INVALID_JSON', 'the body does not start with a JSON object', lineNo, null);
  }

  private onMember(key: string, valueText: string, lineNo: number): void {
    const k = this.kind;
    const canonical = canonicalParentKey(key, k.listKey);
    this.noteRenamed(key, canonical, lineNo);
    if (valueText === '') return this.shared('VALUE_TOO_LARGE', `the value of "${key}" is too large and was skipped`, lineNo, null);
    let value: unknown;
    try {
      value = JSON.parse(valueText);
    } catch {
      this.syntaxError = true;
      return this.shared('INVALID_JSON', `the value of "${key}" is not valid JSON`, lineNo, valueText);
    }
    if (canonical === 'version') this.sawVersion = true;
    if (readHeaderMember(this.header, canonical, value, valueText, (code, message, withValue) => this.shared(code, message, lineNo, withValue ? valueText : null))) return;
    if (canonical === k.listKey) {
      this.listNotArray = true;
      this.issue(k.listNotArray, `"${k.listKey}" should be an array, found ${value === null ? 'null' : typeof value}`, lineNo, valueText);
    } else if (canonicalKey(k.keys, key) === k.idKey) this.singleEntryObject = true;
    // Other unknown members are allowed.
  }

  private onElement(text: string, lineNo: number, tooLarge: boolean, keysWritten: number): void {
    const k = this.kind;
    if (tooLarge) return this.shared('VALUE_TOO_LARGE', `a ${k.listKey} entry is too large and was skipped`, lineNo, null);
    let entry: unknown;
    try {
      entry = JSON.parse(text);
    } catch (err) {
      this.syntaxError = true;
      return this.issue(k.entryNotJson, `a ${k.listKey} entry is not valid JSON: ${(err as Error).message}`, lineNo, text);
    }
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      const found = Array.isArray(entry) ? 'an array' : entry === null ? 'null' : typeof entry;
      return this.issue(k.entryNotObject, `a ${k.listKey} entry should be an object, found ${found}`, lineNo, text);
    }
    // One context for every entry, its line and text set here (no closures per entry on the hot path).
    const ctx = this.entryCtx;
    ctx.lineNo = lineNo;
    ctx.text = text;
    const row = k.readEntry(canonicalFields(k.keys, entry as Record<string, unknown>, text, keysWritten, this.keyEvents), ctx);
    this.entries++;
    this.handler.onEntry?.(row);
  }

  /** A key written differently from the spec (camelCase, other case) is noted once per file. */
  private noteRenamed(written: string, canonical: string, lineNo: number | null): void {
    if (written === canonical || this.renamed.has(written)) return;
    this.renamed.add(written);
    this.shared('NONSTANDARD_KEY', `"${written}" should be written "${canonical}"`, lineNo, null);
  }

  /**
   * A key that is no entry field, noted once per file: a file that adds a field adds it to every
   * entry, and one issue naming it says as much. The set is capped against files of random keys;
   * past the cap a key is counted each time it appears.
   */
  private noteUnknownKey(key: string, lineNo: number): void {
    if (this.unknownKeys.has(key)) return;
    if (this.unknownKeys.size < MAX_NOTED_KEYS) this.unknownKeys.add(key);
    const k = this.kind;
    this.shared('UNKNOWN_KEY', `${JSON.stringify(key)} is not a ${k.file} 1.0 ${k.noun} field (extensions belong in "ext"); not read`, lineNo, null);
  }

  /** A code both kinds share (every kind's list holds LIST_FILE_ISSUE_CODES). */
  private shared(code: ListFileIssueCode, message: string, lineNo: number | null, entryText: string | null): void {
    this.issue(code as string as C, message, lineNo, entryText);
  }

  private issue(code: C, message: string, lineNo: number | null, entryText: string | null): void {
    const severity = this.kind.codes[code];
    if (severity === 'error') this.counts.errors++;
    else if (severity === 'warning') this.counts.warnings++;
    else this.counts.infos++;
    const n = (this.issueCounts.get(code) ?? 0) + 1;
    this.issueCounts.set(code, n);
    if (n > this.maxIssuesPerCode) return;
    this.emit({ lineNo, severity, code, message, lineText: entryText === null ? null : compact(entryText) });
  }

  private emit(issue: ListIssue<C>): void {
    this.handler.onIssue?.(issue);
  }
}

/** An entry as one line of at most 256 characters (parse_issues.line_text). */
function compact(s: string): string {
  const one = s.length > 2048 ? s.slice(0, 2048) : s;
  return one.replace(/\s+/g, ' ').trim().slice(0, 256);
}
