/**
 * Physical lines of a text body, counted from its bytes as they stream by: CR, LF and CRLF each
 * end one line (also a CRLF split across chunks), and a final line without a line end counts
 * (`a\nb` is 2 lines, `a\n` is 1, an empty body 0). A leading byte-order mark is not content; a
 * UTF-16 one switches to counting 16-bit units. This is what `files.lines` holds for ads.txt,
 * app-ads.txt and robots.txt (the Web Almanac's line-count histogram), and the same count as the
 * text parsers' line numbers (src/text/line-splitter.ts).
 */
const CR = 0x0d;
const LF = 0x0a;

export class LineCounter {
  private count = 0;
  private pendingCr = false;
  /** A line has started and not ended. */
  private open = false;
  /** null until the first bytes tell whether the body starts with a BOM. */
  private mode: 'bytes' | 'utf16le' | 'utf16be' | null = null;
  private buffered: Uint8Array[] = [];
  private bufferedBytes = 0;
  /** UTF-16: the first byte of a unit split across chunks. */
  private half: number | null = null;

  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    if (this.mode !== null) {
      this.countBytes(chunk);
      return;
    }
    this.buffered.push(chunk);
    this.bufferedBytes += chunk.length;
    const head = this.head();
    if (this.bufferedBytes < 3 && !isUtf16Bom(head)) return; // a BOM may still be split
    this.start();
  }

  /** The count, a final line without a line end included. */
  end(): number {
    if (this.mode === null) this.start();
    return this.count + (this.open ? 1 : 0);
  }

  private head(): Uint8Array {
    return this.buffered.length === 1 ? this.buffered[0]! : Buffer.concat(this.buffered);
  }

  private start(): void {
    const all = this.head();
    this.buffered = [];
    let skip = 0;
    if (isUtf16Bom(all)) {
      this.mode = all[0] === 0xff ? 'utf16le' : 'utf16be';
      skip = 2;
    } else {
      this.mode = 'bytes';
      if (all[0] === 0xef && all[1] === 0xbb && all[2] === 0xbf) skip = 3;
    }
    this.countBytes(all.subarray(skip));
  }

  private countBytes(bytes: Uint8Array): void {
    if (this.mode === 'bytes') {
      for (let i = 0; i < bytes.length; i++) this.unit(bytes[i]!);
      return;
    }
    let i = 0;
    if (this.half !== null && bytes.length > 0) {
      this.unit16(this.half, bytes[0]!);
      this.half = null;
      i = 1;
    }
    for (; i + 1 < bytes.length; i += 2) this.unit16(bytes[i]!, bytes[i + 1]!);
    if (i < bytes.length) this.half = bytes[i]!;
  }

  private unit16(b0: number, b1: number): void {
    const u = this.mode === 'utf16le' ? b0 | (b1 << 8) : (b0 << 8) | b1;
    this.unit(u === CR || u === LF ? u : 0x20);
  }

  private unit(u: number): void {
    if (u === LF) {
      if (this.pendingCr) this.pendingCr = false;
      else this.count++;
      this.open = false;
    } else if (u === CR) {
      this.count++;
      this.pendingCr = true;
      this.open = false;
    } else {
      this.pendingCr = false;
      this.open = true;
    }
  }
}

function isUtf16Bom(b: Uint8Array): boolean {
  return b.length >= 2 && ((b[0] === 0xff && b[1] === 0xfe) || (b[0] === 0xfe && b[1] === 0xff));
}
