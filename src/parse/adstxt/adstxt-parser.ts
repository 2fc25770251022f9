import { LineSplitter } from '../../text/line-splitter.js';
import { HtmlSniffer } from './html-sniffer.js';
import { severityOf, type AdsTxtIssueCode } from './issue-codes.js';
import { canonicalLineAt, canonicalLineEnd, canonicalRecord, isPlaceholder, isWs, parseRecord, variableEquals, yieldsData } from './line-tokenizer.js';
import type { AdsRecord } from './types.js';
import type { AdsTxtHandler, AdsTxtParserOptions, AdsTxtStatus, AdsTxtSummary } from './types.js';
import { VariableRules } from './variable-rules.js';

const LINE_TEXT_MAX = 256; // contract §3 parse_issues.line_text

/**
 * A non-blank line held while the HTML decision is pending (at most HTML_LOOKAHEAD of them, plus
 * at most one INVALID_UTF8 note, `utf8`, kept in place so events stay in line order).
 */
interface HeldLine {
  line: string;
  start: number;
  end: number;
  lineNo: number;
  tooLong: boolean;
  utf8?: true;
}

/**
 * Incremental ads.txt / app-ads.txt parser. `push` byte chunks as they arrive; events reach the
 * handler as lines complete, in file order; `end` flushes the last line and returns the summary.
 *
 * Every non-blank, non-comment line yields exactly one record, one variable, or one error issue
 * (warnings and infos may come in addition). The only exception is an HTML body: one HTML_BODY
 * error and nothing else.
 */
export class AdsTxtParser {
  private readonly splitter: LineSplitter;
  private readonly rules: VariableRules;

  private readonly fastPath: boolean;
  private readonly maxLineLength: number;
  private sniffer: HtmlSniffer | null = new HtmlSniffer();
  private held: HeldLine[] = [];
  private html = false;
  private encodingNoted = false;
  private utf8Noted = false;
  private ended: AdsTxtSummary | null = null;

  private records = 0;
  private placeholders = 0;
  private placeholderLine = 0;
  private mixedNoted = false;
  private variables = 0;
  private errors = 0;
  private warnings = 0;
  private infos = 0;

  // Per-line context for issue reporting, so the tokenizer's sinks need no extra arguments.
  private curLineNo = 0;
  private curLine = '';
  // A line's warnings are reported after its record or variable, so readers see the thing first.
  private pending: { code: AdsTxtIssueCode; message: string }[] = [];
  private readonly lineIssue = (code: AdsTxtIssueCode, message: string): void => {
    this.pending.push({ code, message });
  };

  constructor(
    private readonly handler: AdsTxtHandler,
    options: AdsTxtParserOptions,
  ) {
    if (options.fileKind !== 'ads.txt' && options.fileKind !== 'app-ads.txt') {
      throw new TypeError(`fileKind must be 'ads.txt' or 'app-ads.txt', got ${JSON.stringify(options.fileKind)}`);
    }
    const maxLineLength = options.maxLineLength ?? 32 * 1024;
    const maxReferrals = options.maxReferrals ?? 10_000;
    if (!Number.isInteger(maxLineLength) || maxLineLength < 256) throw new TypeError('maxLineLength must be an integer ≥ 256');
    if (!Number.isInteger(maxReferrals) || maxReferrals < 0) throw new TypeError('maxReferrals must be an integer ≥ 0');
    this.fastPath = options.canonicalFastPath ?? true;
    this.rules = new VariableRules(options.fileKind, maxReferrals);
    this.maxLineLength = maxLineLength;
    this.splitter = new LineSplitter((line, lineNo, truncated) => this.onLine(line, lineNo, truncated), {
      maxLineLength,
      fastLine: this.fastPath ? (text, pos, lineNo) => this.fastLine(text, pos, lineNo) : undefined,
    });
  }

  /** True once the body is known to be HTML: the caller may stop reading, nothing more will be emitted. */
  get isHtml(): boolean {
    return this.html;
  }

  push(chunk: Uint8Array): void {
    if (this.ended) throw new Error('AdsTxtParser.push after end');
    this.splitter.push(chunk);
  }

  end(): AdsTxtSummary {
    if (this.ended) return this.ended;
    this.splitter.end();
    this.noteEncoding();
    if (this.sniffer) this.decide(this.sniffer.decide());
    if (!this.utf8Noted && this.splitter.invalidUtf8) {
      this.utf8Noted = true; // the bad bytes were only in a cut-off part of a line
      this.noteInvalidUtf8(null, null);
    }
    let status: AdsTxtStatus;
    if (this.html) status = 'html';
    else if (this.records === 0 && this.variables === 0) {
      status = 'empty';
      this.issue('EMPTY_FILE', null, 'no record and no variable: an empty file is no longer a valid declaration (ads.txt 1.1 §3.2.1)', null);
    } else if (this.records > 0 && this.placeholders === this.records) status = 'placeholder';
    else status = 'ok';
    this.ended = {
      status,
      records: this.records,
      variables: this.variables,
      errors: this.errors,
      warnings: this.warnings,
      infos: this.infos,
      lines: this.splitter.lines,
      bytes: this.splitter.bytes,
      ownerDomain: this.rules.ownerDomain,
      subdomains: this.rules.subdomains,
      inventoryPartnerDomains: this.rules.inventoryPartnerDomains,
    };
    return this.ended;
  }

  /**
   * The splitter's fast path: a canonical record line taken straight from the decoded chunk, once
   * the HTML decision is made and while no INVALID_UTF8 note is pending (that note names the line).
   * Same record, same events as `onLine` would give; anything else returns -1 and goes there.
   */
  private fastLine(text: string, pos: number, lineNo: number): number {
    if (this.sniffer !== null || this.html || (!this.utf8Noted && this.splitter.invalidUtf8)) return -1;
    const r = canonicalLineAt(text, pos, lineNo);
    if (r === undefined) return -1;
    const next = canonicalLineEnd();
    if (next - pos > this.maxLineLength) return -1; // the splitter would cut it: LINE_TOO_LONG
    this.acceptRecord(r);
    return next;
  }

  private onLine(line: string, lineNo: number, truncated: boolean): void {
    if (!this.encodingNoted) this.noteEncoding();
    if (this.html) return;
    if (!this.utf8Noted && this.splitter.invalidUtf8 && line.includes('\uFFFD')) {
      this.utf8Noted = true;
      if (this.sniffer) this.held.push({ line, start: 0, end: 0, lineNo, tooLong: false, utf8: true });
      else this.noteInvalidUtf8(lineNo, line);
    }
    if (this.sniffer === null && !truncated && this.fastPath) {
      const r = canonicalRecord(line, lineNo);
      if (r !== undefined) {
        this.curLineNo = lineNo;
        this.curLine = line;
        this.acceptRecord(r);
        return;
      }
    }
    // ads.txt 1.1 §3.4.1: `#` starts a comment anywhere on the line; the rest is trimmed.
    const hash = line.indexOf('#');
    let start = 0;
    let end = hash >= 0 ? hash : line.length;
    while (start < end && isWs(line.charCodeAt(start))) start++;
    while (end > start && isWs(line.charCodeAt(end - 1))) end--;
    if (start === end) return;
    // A cut line is harmless when the cut fell inside a comment; otherwise the record is unknown.
    const tooLong = truncated && hash < 0;
    if (this.sniffer) {
      this.held.push({ line, start, end, lineNo, tooLong });
      const data = tooLong ? null : yieldsData(line, start, end);
      const verdict = this.sniffer.push(line.trim(), data !== null, data === 'record');
      if (verdict !== null) this.decide(verdict);
      return;
    }
    this.parseLine(line, start, end, lineNo, tooLong);
  }

  /** Ends the HTML lookahead: either one HTML_BODY issue, or the held lines are parsed in order. */
  private decide(verdict: 'html' | 'text'): void {
    this.sniffer = null;
    const held = this.held;
    this.held = [];
    if (verdict === 'html') {
      this.html = true;
      const first = held.find((h) => !h.utf8);
      this.issue('HTML_BODY', first?.lineNo ?? null, 'the body is an HTML page, not an ads.txt file; nothing in it is used', first?.line ?? null);
      for (const h of held) if (h.utf8) this.noteInvalidUtf8(h.lineNo, h.line);
      return;
    }
    for (const h of held) {
      if (h.utf8) this.noteInvalidUtf8(h.lineNo, h.line);
      else this.parseLine(h.line, h.start, h.end, h.lineNo, h.tooLong);
    }
  }

  private parseLine(line: string, start: number, end: number, lineNo: number, tooLong: boolean): void {
    this.curLineNo = lineNo;
    this.curLine = line;
    if (tooLong) {
      this.issue('LINE_TOO_LONG', lineNo, 'the line is longer than the parser limit and was cut; it is not used', line);
      return;
    }
    const eq = variableEquals(line, start, end);
    if (eq > 0) {
      const name = line.slice(start, eq).trim().toUpperCase();
      const v = this.rules.interpret(lineNo, name, line.slice(eq + 1, end).trim(), this.lineIssue);
      this.variables++;
      this.handler.onVariable?.(v);
      this.flushLineIssues();
      return;
    }
    const r = parseRecord(line, start, end, lineNo, this.lineIssue);
    if (r === null) {
      this.flushLineIssues();
      return;
    }
    this.acceptRecord(r);
  }

  private acceptRecord(r: AdsRecord): void {
    this.records++;
    if (isPlaceholder(r)) {
      this.placeholders++;
      if (this.placeholderLine === 0) this.placeholderLine = r.lineNo;
    }
    this.handler.onRecord?.(r);
    if (this.pending.length > 0) this.flushLineIssues();
    if (!this.mixedNoted && this.placeholders > 0 && this.placeholders < this.records) {
      this.mixedNoted = true;
      this.issue('PLACEHOLDER_WITH_RECORDS', this.placeholderLine, 'the placeholder record (ads.txt 1.1 §3.2.1) appears beside real records', null);
    }
  }

  private noteInvalidUtf8(lineNo: number | null, line: string | null): void {
    this.issue('INVALID_UTF8', lineNo, 'the body is not valid UTF-8; invalid bytes were replaced by U+FFFD (noted once)', line);
  }

  private flushLineIssues(): void {
    const pending = this.pending;
    if (pending.length === 0) return;
    this.pending = [];
    for (const p of pending) this.issue(p.code, this.curLineNo, p.message, this.curLine);
  }

  private noteEncoding(): void {
    if (this.encodingNoted) return;
    // Called on the first line or after the splitter's end(): its decoder (and BOM) is known by then.
    this.encodingNoted = true;
    if (this.splitter.encoding !== 'utf-8') {
      this.issue('UTF16_ENCODING', null, `the body is ${this.splitter.encoding.toUpperCase()} (by its BOM); decoded, but UTF-8 is expected`, null);
    } else if (this.splitter.bom) {
      this.issue('UTF8_BOM', null, 'the body starts with a UTF-8 byte-order mark; dropped', null);
    }
  }

  private issue(code: AdsTxtIssueCode, lineNo: number | null, message: string, line: string | null): void {
    const severity = severityOf[code];
    if (severity === 'error') this.errors++;
    else if (severity === 'warning') this.warnings++;
    else this.infos++;
    const lineText = line === null ? null : line.length > LINE_TEXT_MAX ? line.slice(0, LINE_TEXT_MAX) : line;
    this.handler.onIssue?.({ lineNo, severity, code, message, lineText });
  }
}
