/**
 * Decides, incrementally and with bounded lookahead, whether a 200 body is an HTML page rather
 * than an ads.txt (spec-decisions: "starts with `<!doctype`, `<html`, or most lines look like
 * markup"; ads.txt 1.1 §3.2.1 distinguishes a real file from an error page).
 *
 * The rule, on non-blank lines after comment removal and trimming:
 *  1. the first one starts with a tag: `<` followed by a letter, `!`, `?` or `/` → html at once;
 *  2. otherwise, of the first HTML_LOOKAHEAD such lines (fewer at end of body), more than half
 *     look like markup (start with `<` or end with `>`) → html;
 *  3. otherwise text.
 * No ads.txt record or variable can start with `<`, so rule 1 never rejects a real file.
 */
export const HTML_LOOKAHEAD = 8;

export type SniffResult = 'html' | 'text' | null;

export class HtmlSniffer {
  private seen = 0;
  private markup = 0;

  /** Feeds the next non-blank line; returns the decision once it is made, else null. */
  push(content: string): SniffResult {
    if (this.seen === 0 && startsWithTag(content)) return 'html';
    this.seen++;
    if (looksLikeMarkup(content)) this.markup++;
    return this.seen >= HTML_LOOKAHEAD ? this.decide() : null;
  }

  /** Decision at end of body (or at the lookahead limit). */
  decide(): 'html' | 'text' {
    return this.seen > 0 && this.markup * 2 > this.seen ? 'html' : 'text';
  }
}

function startsWithTag(s: string): boolean {
  if (s.charCodeAt(0) !== 60 /* < */ || s.length < 2) return false;
  const c = s.charCodeAt(1);
  const lower = c | 0x20;
  return (lower >= 97 && lower <= 122) || c === 33 /* ! */ || c === 63 /* ? */ || c === 47 /* / */;
}

function looksLikeMarkup(s: string): boolean {
  return s.charCodeAt(0) === 60 || s.charCodeAt(s.length - 1) === 62;
}
