/**
 * Incremental text decoder and line splitter shared by the text parsers (ads.txt, app-ads.txt,
 * robots.txt). It consumes a body as byte chunks and calls `onLine` for each complete line, so a
 * body is never held whole and a caller can stop at a byte cap.
 *
 * - CR, LF and CRLF each end one line (ads.txt 1.1 §3.2, RFC 9309 §2.2), also when a CRLF pair
 *   is split across two chunks.
 * - A UTF-8 BOM is dropped; a UTF-16 LE/BE BOM switches decoding to UTF-16.
 * - Invalid UTF-8 is replaced with U+FFFD, never fatal; `invalidUtf8` tells the caller so it can
 *   note it once per file.
 * - Lines longer than `maxLineLength` characters are cut (the rest of the line is skipped) and
 *   flagged, so a body with no line ends cannot grow memory without bound.
 */
import { TextDecoder } from 'node:util';

export interface LineSplitterOptions {
  /** Longest line kept, in UTF-16 code units; the rest of a longer line is dropped. @default 1 MiB */
  maxLineLength?: number;
  /**
   * Optional fast path for a caller that can recognise common lines straight in the decoded
   * text (the ads.txt parser's canonical records): see `FastLineHandler`. Without it every line
   * goes to `onLine`.
   */
  fastLine?: FastLineHandler;
}

/**
 * Called at the start of a line that begins in the current decoded text with no partial line
 * carried from an earlier chunk. It may consume the line itself — when the line's terminator
 * (CR, LF or CRLF) lies inside `text` and the line is no longer than `maxLineLength` — and return
 * the index just past that terminator; the line then counts as line `lineNo` and `onLine` is not
 * called for it. Otherwise it returns -1 and the line is split and emitted as usual.
 */
export type FastLineHandler = (text: string, pos: number, lineNo: number) => number;

export type LineHandler = (line: string, lineNo: number, truncated: boolean) => void;

export type TextEncodingName = 'utf-8' | 'utf-16le' | 'utf-16be';

export class LineSplitter {
  /** Encoding chosen from the BOM (UTF-8 when there is none). */
  encoding: TextEncodingName = 'utf-8';
  /** True when a UTF-8 BOM (or UTF-16 BOM) was found and dropped. */
  bom = false;
  /** True once any byte sequence was not valid in the chosen encoding. */
  invalidUtf8 = false;
  /** Bytes consumed so far. */
  bytes = 0;
  /** Lines emitted so far. */
  lines = 0;

  private readonly maxLineLength: number;
  private readonly fastLine: FastLineHandler | null;
  private decoder: TextDecoder | null = null;
  private head: Uint8Array | null = null; // first bytes held until the BOM can be recognised
  private carry = ''; // partial line carried to the next chunk
  private carryTruncated = false;
  private pendingCr = false; // last chunk ended with CR: an LF opening the next chunk is part of it

  constructor(
    private readonly onLine: LineHandler,
    options: LineSplitterOptions = {},
  ) {
    this.maxLineLength = options.maxLineLength ?? 1 << 20;
    this.fastLine = options.fastLine ?? null;
  }

  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.bytes += chunk.length;
    if (this.decoder === null) {
      const buf = this.head ? concat(this.head, chunk) : chunk;
      if (buf.length < 3 && !(buf.length === 2 && isUtf16Bom(buf))) {
        this.head = buf; // wait for enough bytes to tell a BOM
        return;
      }
      this.head = null;
      this.pickDecoder(buf);
      const skip = this.bom ? (this.encoding === 'utf-8' ? 3 : 2) : 0;
      this.decodeAndSplit(buf.subarray(skip), false);
      return;
    }
    this.decodeAndSplit(chunk, false);
  }

  /** Flushes the last line (a final line without a line end still counts). */
  end(): void {
    if (this.decoder === null) {
      const buf = this.head ?? new Uint8Array(0);
      this.head = null;
      this.pickDecoder(buf);
      const skip = this.bom ? (this.encoding === 'utf-8' ? 3 : 2) : 0;
      this.decodeAndSplit(buf.subarray(skip), true);
    } else {
      this.decodeAndSplit(new Uint8Array(0), true);
    }
    if (this.carry.length > 0 || this.carryTruncated) {
      this.emit(this.carry, this.carryTruncated);
      this.carry = '';
      this.carryTruncated = false;
    }
  }

  private pickDecoder(buf: Uint8Array): void {
    if (buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) {
      this.bom = true;
    } else if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) {
      this.bom = true;
      this.encoding = 'utf-16le';
    } else if (buf.length >= 2 && buf[0] === 0xfe && buf[1] === 0xff) {
      this.bom = true;
      this.encoding = 'utf-16be';
    }
    // ignoreBOM: the BOM is stripped by us, so a second U+FEFF stays data.
    this.decoder = new TextDecoder(this.encoding, { fatal: false, ignoreBOM: true });
  }

  private decodeAndSplit(bytes: Uint8Array, final: boolean): void {
    const text = this.decoder!.decode(bytes, { stream: !final });
    if (!this.invalidUtf8 && text.includes('\uFFFD') && !containsLiteralReplacement(bytes, this.encoding)) {
      this.invalidUtf8 = true;
    }
    if (this.fastLine === null) this.split(text);
    else this.splitFast(text, this.fastLine);
  }

  private split(text: string): void {
    let start = 0;
    const n = text.length;
    if (this.pendingCr) {
      this.pendingCr = false;
      if (n > 0 && text.charCodeAt(0) === 10) start = 1;
    }
    for (let i = start; i < n; i++) {
      const ch = text.charCodeAt(i);
      if (ch !== 10 && ch !== 13) continue;
      this.appendAndEmit(text, start, i);
      i = this.lineEnd(text, i, ch);
      start = i + 1;
    }
    if (start < n) this.appendCarry(text, start, n);
  }

  /**
   * The index of the last character of the line end at `i` (`ch` is text[i], CR or LF): a CRLF
   * pair is one line end; a CR closing the text may pair with an LF opening the next chunk.
   */
  private lineEnd(text: string, i: number, ch: number): number {
    if (ch !== 13) return i;
    if (i + 1 >= text.length) {
      this.pendingCr = true;
      return i;
    }
    return text.charCodeAt(i + 1) === 10 ? i + 1 : i;
  }

  /** `split` with the caller's fast path tried at each line start (no carry pending). */
  private splitFast(text: string, fast: FastLineHandler): void {
    let start = 0;
    const n = text.length;
    if (this.pendingCr) {
      this.pendingCr = false;
      if (n > 0 && text.charCodeAt(0) === 10) start = 1;
    }
    let i = start;
    for (;;) {
      if (this.carry.length === 0 && !this.carryTruncated) {
        while (i < n) {
          const next = fast(text, i, this.lines + 1);
          if (next < 0) break;
          this.lines++;
          i = next;
        }
        // A consumed line that ended with a CR closing the text: an LF opening the next chunk belongs to it.
        if (i === n && i > start && text.charCodeAt(n - 1) === 13) this.pendingCr = true;
        start = i;
      }
      let ch = 0;
      while (i < n && (ch = text.charCodeAt(i)) !== 10 && ch !== 13) i++;
      if (i >= n) break;
      this.appendAndEmit(text, start, i);
      i = this.lineEnd(text, i, ch);
      start = ++i;
    }
    if (start < n) this.appendCarry(text, start, n);
  }

  private appendAndEmit(text: string, from: number, to: number): void {
    if (this.carry.length === 0 && !this.carryTruncated) {
      const len = to - from;
      if (len > this.maxLineLength) this.emit(text.slice(from, from + this.maxLineLength), true);
      else this.emit(text.slice(from, to), false);
      return;
    }
    this.appendCarry(text, from, to);
    const line = this.carry;
    const truncated = this.carryTruncated;
    this.carry = '';
    this.carryTruncated = false;
    this.emit(line, truncated);
  }

  private appendCarry(text: string, from: number, to: number): void {
    if (this.carryTruncated) return;
    const room = this.maxLineLength - this.carry.length;
    if (to - from > room) {
      this.carry += text.slice(from, from + room);
      this.carryTruncated = true;
    } else {
      this.carry += text.slice(from, to);
    }
  }

  private emit(line: string, truncated: boolean): void {
    this.lines++;
    this.onLine(line, this.lines, truncated);
  }
}

function isUtf16Bom(b: Uint8Array): boolean {
  return (b[0] === 0xff && b[1] === 0xfe) || (b[0] === 0xfe && b[1] === 0xff);
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** A literal U+FFFD in the input (EF BF BD in UTF-8) is data, not a decoding error. */
function containsLiteralReplacement(bytes: Uint8Array, encoding: TextEncodingName): boolean {
  if (encoding !== 'utf-8') return true; // UTF-16 errors are rare; do not flag them as invalid UTF-8
  for (let i = 0; i + 2 < bytes.length; i++) {
    if (bytes[i] === 0xef && bytes[i + 1] === 0xbf && bytes[i + 2] === 0xbd) return true;
  }
  return false;
}
