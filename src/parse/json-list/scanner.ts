/**
 * Incremental structural scanner for a JSON list file (sellers.json, buyers.json): one top-level
 * object whose members are handed over as raw JSON text, except one array member (`sellers`)
 * whose elements are handed over one by one as they complete. Only one element (or one
 * ordinary member value) is held in memory at a time, so a 200 MB file scans in flat memory.
 *
 * Why not a generic streaming JSON parser: @streamparser/json builds every value token by token
 * in JS (18–32 MB/s on compact sellers.json, docs/performance.md); scanning structure here and
 * letting the engine's native `JSON.parse` build each small element runs 58–97 MB/s on the same
 * file, still validates every value byte (JSON.parse rejects what the scanner let through), and
 * lets the parser recover from broken structure, which a generic parser stops at.
 *
 * Recovery, because real files are broken (corpus/sellers): a structural error before the
 * array is reported, then the scanner searches the rest of the input for `"sellers": [` (the
 * `arrayKey`) and
 * resumes there; between elements a missing comma or a trailing comma is reported and skipped.
 */

export interface JsonArrayScanHandler {
  /** True for the member key whose array value is streamed element by element. */
  isStreamedKey(key: string): boolean;
  /** The first significant character was not `{`: an array, HTML (`<`), or something else. */
  onNotObject(kind: 'array' | 'html' | 'other', lineNo: number): void;
  /** A top-level member that is not streamed, with its value as raw JSON text ('' when discarded as too large). */
  onMember(key: string, valueText: string, lineNo: number): void;
  /** The streamed array member started (its key as written). */
  onArrayStart(key: string, lineNo: number): void;
  /**
   * One element of the streamed array, as raw JSON text ('' when discarded as too large), and
   * the `:` outside strings in it: the keys written, at any depth (repeats included).
   */
  onElement(text: string, lineNo: number, tooLarge: boolean, keysWritten: number): void;
  /** A structural JSON error; `recovered` says whether scanning goes on. */
  onSyntaxError(message: string, lineNo: number, recovered: boolean): void;
  /**
   * The bytes are UTF-16 and are decoded as such: `by` says how that was seen, a byte-order mark
   * or, without one, a NUL octet beside the first ASCII character (utf16Encoding).
   */
  onUtf16?(encoding: 'utf-16le' | 'utf-16be', by: 'bom' | 'nul'): void;
}

export interface JsonArrayScanOptions {
  /** Longest element or member value kept, in characters; longer ones are reported and skipped. @default 1 MiB */
  maxValueChars?: number;
  /** The streamed array's key, where scanning resumes after a structural error. @default 'sellers' */
  arrayKey?: string;
}

const enum S {
  Start,
  KeyOrEnd, // after `{`
  Key, // after `,` in the top-level object
  KeyText,
  Colon,
  Value,
  MemberText,
  AfterMember,
  ElemOrEnd, // after `[`
  Elem, // after `,` in the array
  ElemText,
  AfterElem,
  Done,
  Resync,
  Stopped,
}

// "sellers" (any case) : [ — where scanning resumes after a structural error (`arrayKey`).
const resyncPattern = (key: string) => new RegExp(`"${key.replace(/[^A-Za-z0-9_]/g, '')}"\\s*:\\s*\\[`, 'i');
const RESYNC_TAIL = 64;

export class JsonArrayScanner {
  private state = S.Start;
  // Chosen on the first two bytes (a UTF-16 BOM, else UTF-8); drops the BOM, replaces invalid bytes.
  private decoder: InstanceType<typeof TextDecoder> | null = null;
  private head: Uint8Array | null = null; // a first chunk too short to tell
  private readonly maxValueChars: number;
  private readonly resyncAt: RegExp;
  private readonly arrayKey: string;
  // Value capture: text parts of the value so far, and its nesting state.
  private parts: string[] = [];
  private capLen = 0;
  private capTooLarge = false;
  private depth = 0;
  private inString = false;
  private escape = false;
  private scalar = false;
  private capLine = 0;
  private colons = 0; // `:` outside strings in the capture: one per key written
  private key = '';
  private streamed = false; // the streamed array has started at least once
  private resyncTail = '';
  // Lines: counted lazily up to `lineCursor` in the current text.
  private line = 1;
  private lineCursor = 0;
  private text = '';

  constructor(
    private readonly handler: JsonArrayScanHandler,
    options: JsonArrayScanOptions = {},
  ) {
    this.maxValueChars = options.maxValueChars ?? 1 << 20;
    this.arrayKey = options.arrayKey ?? 'sellers';
    this.resyncAt = resyncPattern(this.arrayKey);
  }

  /** True until a first significant character has been seen (a held first byte counts unless it is a space). */
  get sawNothing(): boolean {
    if (this.state !== S.Start) return false;
    const b = this.head?.[0];
    return b === undefined || b === 32 || b === 10 || b === 13 || b === 9;
  }

  push(chunk: Uint8Array): void {
    let bytes = chunk;
    if (this.decoder === null) {
      if (this.head !== null) bytes = concat(this.head, chunk);
      if (bytes.length < 2) {
        this.head = bytes;
        return;
      }
      this.head = null;
      this.decoder = this.decoderFor(bytes);
    }
    this.scan(this.decoder.decode(bytes, { stream: true }));
  }

  /**
   * RFC 8259 §8.1 wants UTF-8, but some servers write sellers.json as UTF-16 (Windows tools):
   * read as UTF-8, it is not even JSON. A BOM says which byte order; without one, the NUL
   * octets do (utf16Encoding).
   */
  private decoderFor(bytes: Uint8Array): InstanceType<typeof TextDecoder> {
    const bom = bytes[0] === 0xff && bytes[1] === 0xfe ? 'utf-16le' : bytes[0] === 0xfe && bytes[1] === 0xff ? 'utf-16be' : null;
    const encoding = bom ?? utf16Encoding(bytes);
    if (encoding === null) return new TextDecoder('utf-8');
    this.handler.onUtf16?.(encoding, bom !== null ? 'bom' : 'nul');
    return new TextDecoder(encoding);
  }

  pushText(text: string): void {
    // A UTF-8 BOM decoded by someone else arrives as U+FEFF; TextDecoder drops it for bytes.
    this.scan(this.state === S.Start && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  }

  /** Ends the input; reports an unexpected end when the document is incomplete. */
  end(): void {
    if (this.decoder === null) {
      this.decoder = new TextDecoder('utf-8');
      if (this.head !== null) this.scan(this.decoder.decode(this.head, { stream: true }));
      this.head = null;
    }
    const rest = this.decoder.decode();
    if (rest) this.scan(rest);
    const s = this.state;
    if (s === S.MemberText && this.scalar && this.depth === 0 && !this.inString) {
      // A document ending right after a scalar value has no closing brace anyway.
      this.handler.onSyntaxError('unexpected end of input', this.line, false);
    } else if (s !== S.Start && s !== S.Done && s !== S.Stopped) {
      this.handler.onSyntaxError(s === S.Resync ? `no ${this.arrayKey} array found after the error` : 'unexpected end of input', this.line, false);
    }
    this.state = S.Stopped;
    this.parts = [];
  }

  private lineAt(pos: number): number {
    const t = this.text;
    let i = t.indexOf('\n', this.lineCursor);
    while (i !== -1 && i < pos) {
      this.line++;
      i = t.indexOf('\n', i + 1);
    }
    if (pos > this.lineCursor) this.lineCursor = pos;
    return this.line;
  }

  private error(message: string, pos: number): void {
    const lineNo = this.lineAt(pos);
    // Before the streamed array: look for it further on. After it: nothing left worth reading.
    const recover = !this.streamed;
    this.handler.onSyntaxError(message, lineNo, recover);
    this.state = recover ? S.Resync : S.Stopped;
    this.resyncTail = '';
  }

  private beginCapture(text: string, i: number): void {
    this.parts = [];
    this.capLen = 0;
    this.capTooLarge = false;
    this.depth = 0;
    this.colons = 0;
    this.inString = false;
    this.escape = false;
    const c = text.charCodeAt(i);
    this.scalar = !(c === 34 || c === 123 || c === 91);
    this.capLine = this.lineAt(i);
  }

  /**
   * Advances the current capture from `i`; returns the index just after the value when it
   * ends in this text, or -1 (then the text from `from` is kept and scanning continues with the
   * next chunk).
   */
  private capture(text: string, i: number, from: number): number {
    const n = text.length;
    let depth = this.depth;
    let inString = this.inString;
    let escape = this.escape;
    let colons = this.colons;
    let end = -1;
    if (this.scalar) {
      for (; i < n; i++) {
        const c = text.charCodeAt(i);
        if (c === 44 || c === 125 || c === 93 || c === 32 || c === 10 || c === 13 || c === 9) {
          end = i;
          break;
        }
      }
    } else {
      for (; i < n; i++) {
        const c = text.charCodeAt(i);
        if (inString) {
          if (escape) escape = false;
          else if (c === 92) escape = true;
          else if (c === 34) {
            inString = false;
            if (depth === 0) {
              end = i + 1;
              break;
            }
          }
        } else if (c === 34) inString = true;
        else if (c === 123 || c === 91) depth++;
        else if (c === 125 || c === 93) {
          if (--depth === 0) {
            end = i + 1;
            break;
          }
        } else if (c === 58) colons++;
      }
    }
    this.depth = depth;
    this.colons = colons;
    this.inString = inString;
    this.escape = escape;
    const stop = end === -1 ? n : end;
    if (!this.capTooLarge) {
      this.capLen += stop - from;
      if (this.capLen > this.maxValueChars) {
        this.capTooLarge = true;
        this.parts = [];
      } else if (end === -1) this.parts.push(text.slice(from));
    }
    return end;
  }

  private takeCapture(text: string, from: number, end: number): string {
    if (this.capTooLarge) return '';
    const last = text.slice(from, end);
    if (this.parts.length === 0) return last;
    this.parts.push(last);
    const whole = this.parts.join('');
    this.parts = [];
    return whole;
  }

  private scan(text: string): void {
    this.text = text;
    this.lineCursor = 0;
    const n = text.length;
    let i = 0;
    // A capture carried over from the previous chunk continues at 0.
    while (i < n) {
      const s = this.state;
      if (s === S.Stopped) break;
      if (s === S.Resync) {
        i = this.resync(text, i);
        continue;
      }
      if (s === S.KeyText || s === S.MemberText || s === S.ElemText) {
        const end = this.capture(text, i, i);
        if (end === -1) break;
        const value = this.takeCapture(text, i, end);
        i = end;
        this.completeCapture(s, value);
        continue;
      }
      const c = text.charCodeAt(i);
      if (c === 32 || c === 10 || c === 13 || c === 9) i++;
      // ElemOrEnd … AfterElem are the states between the array's elements (ElemText is taken above).
      else if (s >= S.ElemOrEnd && s <= S.AfterElem) i = this.inArray(s, c, text, i);
      else i = this.inObject(s, c, text, i);
    }
    this.finishText();
  }

  /** One significant character outside any value, at the top level: returns where scanning continues. */
  private inObject(s: S, c: number, text: string, i: number): number {
    switch (s) {
      case S.Start:
        if (c === 123) this.state = S.KeyOrEnd;
        else {
          this.handler.onNotObject(c === 91 ? 'array' : c === 60 ? 'html' : 'other', this.lineAt(i));
          this.state = S.Stopped;
        }
        return i + 1;
      case S.KeyOrEnd:
      case S.Key:
        if (c === 34) {
          this.beginCapture(text, i);
          this.state = S.KeyText;
          return this.startCapture(text, i);
        }
        if (c === 125 && s === S.KeyOrEnd) {
          this.state = S.Done;
          return i + 1;
        }
        this.error(s === S.Key && c === 125 ? 'trailing comma before }' : `expected a member name, found ${show(text, i)}`, i);
        return i;
      case S.Colon:
        if (c !== 58) {
          this.error(`expected ':' after member name, found ${show(text, i)}`, i);
          return i;
        }
        this.state = S.Value;
        return i + 1;
      case S.Value:
        return this.atValue(c, text, i);
      case S.AfterMember:
        if (c !== 44 && c !== 125) {
          this.error(`expected ',' or '}' after a member, found ${show(text, i)}`, i);
          return i;
        }
        this.state = c === 44 ? S.Key : S.Done;
        return i + 1;
      case S.Done:
        this.handler.onSyntaxError(`unexpected data after the end of the document: ${show(text, i)}`, this.lineAt(i), false);
        this.state = S.Stopped;
        return i;
      default:
        throw new Error(`unreachable scanner state ${s}`);
    }
  }

  /** A member's value starts at `i`: the streamed array, or a value captured whole. */
  private atValue(c: number, text: string, i: number): number {
    if (c === 91 && this.handler.isStreamedKey(this.key)) {
      this.streamed = true;
      this.handler.onArrayStart(this.key, this.lineAt(i));
      this.state = S.ElemOrEnd;
      return i + 1;
    }
    if (c === 44 || c === 125 || c === 93 || c === 58) {
      this.error(`expected a value, found ${show(text, i)}`, i);
      return i;
    }
    this.beginCapture(text, i);
    this.state = S.MemberText;
    return this.startCapture(text, i);
  }

  /** One significant character between the streamed array's elements: returns where scanning continues. */
  private inArray(s: S, c: number, text: string, i: number): number {
    if (s === S.AfterElem) {
      if (c === 44) this.state = S.Elem;
      else if (c === 93) this.state = S.AfterMember;
      else {
        // Lenient: a missing comma between elements is reported, and the next element read.
        this.handler.onSyntaxError(`expected ',' or ']' after an array element, found ${show(text, i)}`, this.lineAt(i), true);
        this.state = S.Elem;
        return i;
      }
      return i + 1;
    }
    if (c === 93) {
      if (s === S.Elem) this.handler.onSyntaxError('trailing comma before ]', this.lineAt(i), true);
      this.state = S.AfterMember;
      return i + 1;
    }
    if (c === 44) {
      this.handler.onSyntaxError('empty array element (two commas)', this.lineAt(i), true);
      return i + 1;
    }
    this.beginCapture(text, i);
    this.state = S.ElemText;
    return this.startCapture(text, i);
  }

  /** Starts a capture at `i` (its first character); returns where scanning continues. */
  private startCapture(text: string, i: number): number {
    const s = this.state;
    const from = i;
    let end: number;
    if (this.scalar) end = this.capture(text, i, from);
    else {
      // Consume the opening character, then continue inside the value.
      const c = text.charCodeAt(i);
      if (c === 34) this.inString = true;
      else this.depth = 1;
      end = this.capture(text, i + 1, from);
    }
    if (end === -1) return text.length;
    this.completeCapture(s, this.takeCapture(text, from, end));
    return end;
  }

  private completeCapture(s: S, value: string): void {
    if (s === S.KeyText) {
      let key: unknown;
      try {
        key = JSON.parse(value);
      } catch {
        key = value.slice(1, -1);
      }
      this.key = String(key);
      this.state = S.Colon;
    } else if (s === S.MemberText) {
      this.handler.onMember(this.key, value, this.capLine);
      this.state = S.AfterMember;
    } else {
      this.handler.onElement(value, this.capLine, this.capTooLarge, this.colons);
      this.state = S.AfterElem;
    }
  }

  private resync(text: string, i: number): number {
    const hay = this.resyncTail + text.slice(i);
    const m = this.resyncAt.exec(hay);
    if (!m) {
      this.resyncTail = hay.slice(-RESYNC_TAIL);
      return text.length;
    }
    const after = i + (m.index + m[0].length - this.resyncTail.length);
    this.resyncTail = '';
    this.key = this.arrayKey;
    this.streamed = true;
    this.handler.onArrayStart(this.key, this.lineAt(after));
    this.state = S.ElemOrEnd;
    return after;
  }

  private finishText(): void {
    this.lineAt(this.text.length);
    this.lineCursor = 0;
    this.text = '';
  }
}

/** The offending character, quoted (only one, so the message does not depend on chunking). */
function show(text: string, i: number): string {
  return JSON.stringify(text[i] ?? '');
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/**
 * UTF-16 without a BOM, by where the NULs are. A JSON text starts with an ASCII character (`{`,
 * `[` or whitespace), which UTF-16 writes as that octet beside a NUL: `xx 00` is UTF-16LE and
 * `00 xx` UTF-16BE (the octet patterns of RFC 4627 §3; RFC 8259 §8.1 keeps only UTF-8, and no
 * UTF-8 JSON text holds a NUL). Null for anything else.
 */
export function utf16Encoding(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | null {
  if (bytes.length < 2) return null;
  const [a, b] = [bytes[0]!, bytes[1]!];
  if (b === 0 && a > 0 && a < 0x80) return 'utf-16le';
  if (a === 0 && b > 0 && b < 0x80) return 'utf-16be';
  return null;
}
