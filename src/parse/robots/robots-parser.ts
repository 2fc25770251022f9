/**
 * Incremental robots.txt parser: byte chunks in, `RobotsTxt` out (RFC 9309 §2.1–2.5).
 *
 * - Reads at most `maxBytes` (default 500 KiB, RFC 9309 §2.5's floor); the rest is counted,
 *   ignored and reported (`truncated`, issue PARSE_LIMIT).
 * - CR, LF and CRLF each end one line, also when CRLF is split across chunks; leading UTF-8 BOM
 *   octets are skipped (also a partial BOM, as Google's reference does); a UTF-16 BOM switches to
 *   UTF-16 decoding (RFC 9309 §2.2.2 lets implementors bridge encoding mismatches).
 * - Lines are cut at 16,663 octets, the reference implementation's line buffer (8 × 2083 − 1),
 *   and at their first NUL octet, where the reference's C strings end.
 * - Consecutive user-agent lines open one group; the first allow/disallow line closes the list,
 *   and the next user-agent line opens a new group (RFC 9309 §2.1, §2.2). Sitemap and other
 *   records never end a group (§2.2.4). Rules before any user-agent line are ignored (§2.2.2).
 * - Each rule keeps its value's octets as read (`RobotsRule.octets`) beside the RFC pattern, so
 *   the matcher can be compiled in either reading from one parse.
 */
import { ManagedBlocks } from './managed-blocks.js';
import { normalisePattern } from './percent-encoding.js';
import { splitRobotsLine } from './robots-line.js';
import type { RobotsGroup, RobotsIssue, RobotsIssueSeverity, RobotsTxt } from './types.js';
import { isGlobalAgent, productTokenOf } from './user-agent.js';

export interface RobotsParserOptions {
  /** Bytes parsed; the rest is ignored and reported. @default 512000 (500 KiB, RFC 9309 §2.5) */
  maxBytes?: number;
}

export const ROBOTS_PARSE_LIMIT = 500 * 1024;
/** Google's kMaxLineLen (2083 × 8) minus the terminating NUL. */
export const ROBOTS_MAX_LINE_OCTETS = 2083 * 8 - 1;
/** Line-level issues kept per file; more are counted in one ISSUES_CAPPED issue. */
const MAX_LINE_ISSUES = 200;

// Records other than the four RFC/sitemap ones that are common enough to be data, not noise.
const KNOWN_OTHERS = new Set(['crawl-delay', 'host', 'clean-param', 'request-rate', 'visit-time', 'noindex', 'nofollow', 'noarchive', 'content-signal', 'content-usage', 'ai-training', 'cache-delay', 'license']);
const TOKEN_KEY = /^[A-Za-z0-9_-]+$/;
const HTML_START = /^\s*<(?:!doctype|html|head|body|!--|script|meta|title)\b/i;
// eslint-disable-next-line no-control-regex
const NON_ASCII = /[^\x00-\x7f]/;
const utf8Strict = new TextDecoder('utf-8', { fatal: true });

export class RobotsParser {
  private readonly maxBytes: number;
  private bytes = 0;
  private kept = 0;
  private truncated = false;
  private ended = false;
  private head: Uint8Array | null = new Uint8Array(0); // first bytes, until the BOM is known
  private utf16: InstanceType<typeof TextDecoder> | null = null;
  private pending = '';
  private lastWasCr = false;
  private chunkAscii = true; // the chunk being split has no octet above 0x7F: values need no decoding
  private lines = 0;
  private directiveLines = 0;
  private unknownLines = 0;
  private invalidUtf8 = false;
  private html: boolean | null = null;
  private lineIssues = 0;
  private cappedIssues = 0;
  private readonly groups: RobotsGroup[] = [];
  private current: RobotsGroup | null = null;
  private currentHasRules = false;
  private readonly sitemaps: RobotsTxt['sitemaps'] = [];
  private readonly others: RobotsTxt['others'] = [];
  private readonly issues: RobotsIssue[] = [];
  private readonly fileIssues: RobotsIssue[] = [];
  private readonly managed = new ManagedBlocks();

  constructor(options: RobotsParserOptions = {}) {
    const max = options.maxBytes ?? ROBOTS_PARSE_LIMIT;
    if (!Number.isInteger(max) || max < 0) throw new TypeError(`maxBytes must be a non-negative integer, got ${String(max)}`);
    this.maxBytes = max;
  }

  push(chunk: Uint8Array): void {
    if (this.ended) throw new Error('RobotsParser.push after end()');
    this.bytes += chunk.length;
    if (this.truncated) return;
    let take = chunk;
    if (this.kept + chunk.length > this.maxBytes) {
      take = chunk.subarray(0, this.maxBytes - this.kept);
      this.truncated = true;
    }
    this.kept += take.length;
    if (this.head !== null) {
      const buf = concat(this.head, take);
      if (buf.length < 3 && !this.truncated) {
        this.head = buf;
        return;
      }
      this.head = null;
      this.begin(buf);
      return;
    }
    this.feed(take);
  }

  end(): RobotsTxt {
    if (this.ended) throw new Error('RobotsParser.end called twice');
    if (this.head !== null) {
      const buf = this.head;
      this.head = null;
      this.begin(buf);
    }
    if (this.utf16) this.feedText(this.utf16.decode());
    this.ended = true;
    if (this.truncated) {
      // The last line was cut by the limit: a partial rule could mean something else, drop it.
      this.fileIssue('warning', 'PARSE_LIMIT', `body is ${this.bytes} bytes; only the first ${this.maxBytes} were parsed (RFC 9309 §2.5)`);
    } else if (this.pending.length > 0) {
      this.line(this.pending);
    }
    this.pending = '';
    if (this.invalidUtf8) this.fileIssue('warning', 'INVALID_UTF8', 'the file is not valid UTF-8 (RFC 9309 §2.3); octets are matched as found');
    if (this.html) this.fileIssue('warning', 'HTML_BODY', 'the body looks like an HTML page, not a robots.txt');
    if (this.cappedIssues > 0) this.fileIssue('info', 'ISSUES_CAPPED', `${this.cappedIssues} more line issues not listed`);
    const status = this.html ? 'html' : this.groups.length + this.sitemaps.length + this.others.length === 0 ? 'empty' : 'ok';
    return {
      groups: this.groups,
      sitemaps: this.sitemaps,
      others: this.others,
      issues: [...this.issues, ...this.fileIssues],
      bytes: this.bytes,
      truncated: this.truncated,
      lines: this.lines,
      directiveLines: this.directiveLines,
      unknownLines: this.unknownLines,
      status,
      utf16: this.utf16 !== null,
      managedBlocks: this.managed.blocks,
    };
  }

  /** First bytes of the body: pick UTF-16 on its BOM, else skip (part of) a UTF-8 BOM. */
  private begin(buf: Uint8Array): void {
    if (buf.length >= 2 && ((buf[0] === 0xff && buf[1] === 0xfe) || (buf[0] === 0xfe && buf[1] === 0xff))) {
      this.utf16 = new TextDecoder(buf[0] === 0xff ? 'utf-16le' : 'utf-16be');
      this.fileIssue('info', 'UTF16_DECODED', 'UTF-16 body decoded (RFC 9309 §2.3 requires UTF-8)');
      this.feed(buf.subarray(2));
      return;
    }
    // Google's reference skips any leading prefix of EF BB BF, even an incomplete one.
    let skip = 0;
    while (skip < 3 && skip < buf.length && buf[skip] === BOM[skip]) skip++;
    this.feed(buf.subarray(skip));
  }

  private feed(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    if (this.utf16) {
      this.feedText(this.utf16.decode(bytes, { stream: true }));
      return;
    }
    this.split(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1'));
  }

  private feedText(text: string): void {
    if (text.length > 0) this.split(Buffer.from(text, 'utf8').toString('latin1'));
  }

  /** Splits octets into lines; CR, LF and CRLF each end one line (RFC 9309 §2.2 NL). */
  private split(s: string): void {
    const n = s.length;
    this.chunkAscii = this.pending.length === 0 ? !NON_ASCII.test(s) : false;
    let start = 0;
    if (this.lastWasCr && n > 0 && s.charCodeAt(0) === 10) start = 1;
    this.lastWasCr = false;
    // Native indexOf for each line-end character beats a charCodeAt loop several times over.
    let lf = s.indexOf('\n', start);
    let cr = s.indexOf('\r', start);
    while (lf !== -1 || cr !== -1) {
      let end = cr === -1 || (lf !== -1 && lf < cr) ? lf : cr;
      const text = this.pending.length > 0 ? this.pending + s.slice(start, end) : s.slice(start, end);
      this.pending = '';
      this.line(text);
      if (end === cr) {
        if (end + 1 === n) this.lastWasCr = true;
        else if (s.charCodeAt(end + 1) === 10) end++;
      }
      start = end + 1;
      if (lf !== -1 && lf < start) lf = s.indexOf('\n', start);
      if (cr !== -1 && cr < start) cr = s.indexOf('\r', start);
    }
    if (start < n) this.pending += s.slice(start);
  }

  private line(raw: string): void {
    const lineNo = ++this.lines;
    let text = raw;
    if (text.length > ROBOTS_MAX_LINE_OCTETS) {
      text = text.slice(0, ROBOTS_MAX_LINE_OCTETS);
      this.issue(lineNo, 'warning', 'LINE_TOO_LONG', `line is ${raw.length} octets; cut at ${ROBOTS_MAX_LINE_OCTETS} as Google's reference does`, text);
    }
    // Google's reference handles each line as a C string, so it ends at the first NUL. Keeping
    // the NULs would make `Disallow: /family/photos\0` match nothing: the rule would fail open.
    const nul = text.indexOf('\0');
    if (nul !== -1) {
      text = text.slice(0, nul);
      this.issue(lineNo, 'warning', 'NUL_IN_LINE', `NUL octet at column ${nul + 1}; the line is read up to it, as Google's reference does`, text);
    }
    if (this.html === null && /\S/.test(text)) this.html = HTML_START.test(text);
    const parsed = splitRobotsLine(text);
    if (parsed === null) {
      const t = text.trim();
      if (t.length > 0 && t[0] !== '#') this.invalidLine(lineNo, 'not a `key: value` line; ignored', text);
      // A generator's markers are whole-line comments (managed-blocks.ts).
      else if (t.length > 0) this.managed.comment(lineNo, t);
      return;
    }
    const { kind, key, value } = parsed;
    if (kind === 'other' && (parsed.noColon || !TOKEN_KEY.test(key))) {
      // Google counts these as unknown directives; as data they are noise (prose, markup).
      this.unknownLines++;
      this.invalidLine(lineNo, parsed.noColon ? 'not a `key: value` line; ignored' : 'key is not a word; ignored', text);
      return;
    }
    if (parsed.typo) this.issue(lineNo, 'info', 'KEY_TYPO', `'${this.decode(key)}' read as '${kind}'`, text);
    if (parsed.noColon) this.issue(lineNo, 'info', 'MISSING_COLON', 'no `:` after the key; whitespace accepted instead', text);
    switch (kind) {
      case 'user-agent': {
        this.directiveLines++;
        const agent = this.decode(value);
        if (this.current === null || this.currentHasRules) {
          this.current = { groupNo: this.groups.length + 1, userAgents: [], lineNo, rules: [] };
          this.currentHasRules = false;
          this.groups.push(this.current);
        }
        this.current.userAgents.push(agent);
        if (agent.length === 0) this.issue(lineNo, 'warning', 'EMPTY_USER_AGENT', 'user-agent with no value matches no crawler', text);
        else if (!isGlobalAgent(agent) && productTokenOf(agent) !== agent.toLowerCase()) {
          const token = productTokenOf(agent);
          this.issue(lineNo, 'info', 'USER_AGENT_NOT_TOKEN', token ? `not a product token (RFC 9309 §2.2.1); matched as '${token}'` : 'not a product token (RFC 9309 §2.2.1); matches no crawler', text);
        }
        return;
      }
      case 'allow':
      case 'disallow': {
        this.directiveLines++;
        if (this.current === null) {
          this.issue(lineNo, 'warning', 'RULE_OUTSIDE_GROUP', 'rule before any user-agent line; ignored (RFC 9309 §2.2.2)', text);
          return;
        }
        this.currentHasRules = true;
        this.current.rules.push({ directive: kind, path: this.decode(value), lineNo, pattern: normalisePattern(this.absolutePath(lineNo, value, text)), octets: value });
        return;
      }
      case 'sitemap':
        this.directiveLines++;
        if (value.length === 0) this.issue(lineNo, 'warning', 'EMPTY_SITEMAP', 'sitemap line without a URL', text);
        else this.sitemaps.push({ url: this.decode(value), lineNo });
        return;
      default: {
        this.unknownLines++;
        const name = key.toLowerCase();
        this.others.push({ name, value: this.decode(value), lineNo });
        if (!KNOWN_OTHERS.has(name)) this.issue(lineNo, 'info', 'UNKNOWN_DIRECTIVE', `'${name}' is not a robots.txt directive; kept as data (RFC 9309 §2.2.4)`, text);
      }
    }
  }

  /**
   * RFC 9309 §2.2's grammar wants a path-pattern to start with `/` but does not say what a
   * crawler makes of one that does not; Google's spec does: `fish/` is the same as `/fish/`.
   * Read that way, and noted, rather than left as a rule that matches no URL.
   */
  private absolutePath(lineNo: number, value: string, text: string): string {
    const c0 = value.charCodeAt(0);
    if (value.length === 0 || c0 === 47 || c0 === 42) return value;
    this.issue(lineNo, 'warning', 'PATH_NOT_ABSOLUTE', 'path does not start with `/` or `*`; read with a leading `/` as Google\'s spec says (RFC 9309 §2.2 requires the `/`)', text);
    return '/' + value;
  }

  /** An unusable line; not reported line by line in an HTML body, where HTML_BODY says it all. */
  private invalidLine(lineNo: number, message: string, text: string): void {
    if (!this.html) this.issue(lineNo, 'warning', 'INVALID_LINE', message, text);
  }

  /** Octets → UTF-8 text; invalid sequences are replaced and noted once per file. */
  private decode(octets: string): string {
    if (this.chunkAscii || !NON_ASCII.test(octets)) return octets;
    const bytes = Buffer.from(octets, 'latin1');
    try {
      return utf8Strict.decode(bytes);
    } catch {
      this.invalidUtf8 = true;
      return bytes.toString('utf8');
    }
  }

  private issue(lineNo: number, severity: RobotsIssueSeverity, code: string, message: string, lineOctets: string): void {
    if (this.lineIssues >= MAX_LINE_ISSUES) {
      this.cappedIssues++;
      return;
    }
    this.lineIssues++;
    const text = this.decode(lineOctets.length > 1024 ? lineOctets.slice(0, 1024) : lineOctets);
    this.issues.push({ lineNo, severity, code, message, lineText: text.length > 256 ? text.slice(0, 256) : text });
  }

  private fileIssue(severity: RobotsIssueSeverity, code: string, message: string): void {
    this.fileIssues.push({ lineNo: null, severity, code, message, lineText: null });
  }
}

const BOM = [0xef, 0xbb, 0xbf];

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** Parses a whole robots.txt given as text (UTF-8 encoded first) or bytes. */
export function parseRobotsTxt(input: string | Uint8Array, options?: RobotsParserOptions): RobotsTxt {
  const parser = new RobotsParser(options);
  parser.push(typeof input === 'string' ? Buffer.from(input, 'utf8') : input);
  return parser.end();
}
