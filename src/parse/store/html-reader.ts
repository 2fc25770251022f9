import { Tokenizer, type TokenizerCallbacks, type QuoteType } from 'htmlparser2';

/**
 * The tags and text of an HTML document, as htmlparser2's Tokenizer reads them (attribute
 * quoting, entities, raw-text `<script>`/`<style>`/`<title>`/`<textarea>` as browsers read
 * them), without building a tree.
 *
 * Why not htmlparser2's Parser: it keeps its open elements newest first, inserting with
 * `unshift` and searching with `indexOf` on every closing tag, and does the same with its
 * foreign-content stack (`<svg>`, `<math>`, `<mi>`…). A page of unclosed nested tags, or of
 * closing tags matching nothing under a deep stack, costs O(depth) per tag, quadratic overall
 * (2.8 MB of `<b><i>`: 340 s; of `<mi>`: over 30 s with its element stack trimmed), and the
 * parse holds the event loop all that time.
 *
 * A store page scanner needs no tree: meta tags are read where they stand, a JSON-LD script is
 * raw text up to its `</script>`, a link runs from `<a>` to `</a>` (or the next `<a>`, or the end
 * of the page; store-page-scanner.ts). So this reader keeps no stack at all: each event costs
 * O(its own length), whatever the nesting. Names are lower-cased (tags and attributes), entities
 * decoded, and the first of duplicate attributes counts, as in browsers.
 */
export interface HtmlHandler {
  onopentag(name: string, attribs: Record<string, string>): void;
  ontext(text: string): void;
  onclosetag(name: string): void;
}

const { fromCodePoint } = String;

export class FlatHtmlReader implements TokenizerCallbacks {
  private readonly tokenizer: Tokenizer;
  private tagname = '';
  private attribname = '';
  private attribvalue = '';
  private attribs: Record<string, string> | null = null;
  /** Chunks from the oldest one the tokenizer may still point into (its indices are absolute). */
  private readonly buffers: string[] = [];
  private bufferOffset = 0;

  /**
   * `xmlMode` (an RSL licence, src/parse/consent/rsl.ts): XML's tokenizing, where `<x/>` also
   * closes `<x>` and CDATA is text. Names are still lower-cased.
   */
  constructor(private readonly cbs: HtmlHandler, private readonly xmlMode = false) {
    this.tokenizer = new Tokenizer({ decodeEntities: true, xmlMode }, this);
  }

  write(chunk: string): void {
    this.buffers.push(chunk);
    this.tokenizer.write(chunk);
  }

  end(): void {
    this.tokenizer.end();
  }

  ontext(start: number, endIndex: number): void {
    this.cbs.ontext(this.slice(start, endIndex));
  }

  ontextentity(cp: number): void {
    this.cbs.ontext(fromCodePoint(cp));
  }

  onopentagname(start: number, endIndex: number): void {
    this.tagname = this.slice(start, endIndex).toLowerCase();
    this.attribs = Object.create(null) as Record<string, string>;
  }

  onopentagend(): void {
    if (this.attribs === null) return;
    const attribs = this.attribs;
    this.attribs = null;
    this.cbs.onopentag(this.tagname, attribs);
  }

  onselfclosingtag(): void {
    // In HTML `<a/>` opens `<a>`: the slash means nothing (void elements have no end anyway).
    const name = this.tagname;
    this.onopentagend();
    if (this.xmlMode) this.cbs.onclosetag(name);
  }

  onclosetag(start: number, endIndex: number): void {
    this.cbs.onclosetag(this.slice(start, endIndex).toLowerCase());
  }

  onattribname(start: number, endIndex: number): void {
    this.attribname = this.slice(start, endIndex).toLowerCase();
  }

  onattribdata(start: number, endIndex: number): void {
    this.attribvalue += this.slice(start, endIndex);
  }

  onattribentity(cp: number): void {
    this.attribvalue += fromCodePoint(cp);
  }

  onattribend(_quote: QuoteType): void {
    if (this.attribs !== null && !(this.attribname in this.attribs)) this.attribs[this.attribname] = this.attribvalue;
    this.attribvalue = '';
  }

  // Comments, declarations and processing instructions say nothing a reader here needs; CDATA is
  // a comment in HTML content, and text in XML.
  oncdata(start: number, endIndex: number, endOffset: number): void {
    if (this.xmlMode) this.cbs.ontext(this.slice(start, endIndex - endOffset));
  }
  oncomment(): void {}
  ondeclaration(): void {}
  onprocessinginstruction(): void {}
  onend(): void {}

  /** The text between two absolute indices, across the chunks written; drops chunks passed. */
  private slice(start: number, end: number): string {
    if (start === end) return '';
    while (start - this.bufferOffset >= this.buffers[0]!.length) this.dropFirstBuffer();
    let text = this.buffers[0]!.slice(start - this.bufferOffset, end - this.bufferOffset);
    while (end - this.bufferOffset > this.buffers[0]!.length) {
      this.dropFirstBuffer();
      text += this.buffers[0]!.slice(0, end - this.bufferOffset);
    }
    return text;
  }

  private dropFirstBuffer(): void {
    this.bufferOffset += this.buffers[0]!.length;
    this.buffers.shift();
  }
}
