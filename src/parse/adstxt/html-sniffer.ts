/**
 * Decides, incrementally and with bounded lookahead, whether a 200 body is an HTML page rather
 * than an ads.txt (spec-decisions: "starts with `<!doctype`, `<html`, or most lines look like
 * markup"; ads.txt 1.1 §3.2.1 distinguishes a real file from an error page).
 *
 * A served 2xx file must be parsed (ads.txt 1.1 §3.1), and field 4 and extensions are free text
 * (§3.2.2, §3.4.3): `a.com, 1, DIRECT, <id>` is a record even though it ends with `>`. So the
 * caller says of each line whether it yields a record or a variable, and such a line never counts
 * as markup. The rule, on non-blank lines (trimmed; the data test sees them without comment):
 *  1. the first one starts with a tag that only opens a document (`<!doctype`, `<html`, `<head`,
 *     `<body`, `<?xml`, `<!--`, `<meta`, `<title`, `<script`) → html at once;
 *  2. a line within the lookahead that yields a data record → text at once: the file has a real
 *     record, whatever junk precedes it (a PHP notice of several `<br />`/`<b>…</b>` lines);
 *  3. otherwise, of the first HTML_LOOKAHEAD such lines (fewer at end of body), more than half
 *     are markup: they yield no record or variable, and start with `<` or end with `>` → html;
 *  4. otherwise text.
 * No ads.txt record or variable can start with `<` (field 1 is a domain, a variable name a word),
 * so rule 1 never rejects a real file either. Other tags in front (`<br />` and `<b>Warning</b>…`
 * from a PHP notice) only weigh in rule 3, and a record among the first lines ends the question
 * (rule 2), so the records after them are still read.
 */
export const HTML_LOOKAHEAD = 8;

export type SniffResult = 'html' | 'text' | null;

export class HtmlSniffer {
  private seen = 0;
  private markup = 0;

  /**
   * Feeds the next non-blank line (trimmed), whether it yields a record or a variable, and whether a record;
   * returns the decision once it is made, else null. Callers that cannot tell (the robots.txt
   * file status in pipelines/) leave `isData` out, and every `<…`/`…>` line counts as markup.
   */
  push(content: string, isData = false, isRecord = false): SniffResult {
    if (this.seen === 0 && DOCUMENT_START.test(content)) return 'html';
    if (isRecord) return 'text';
    this.seen++;
    if (!isData && looksLikeMarkup(content)) this.markup++;
    return this.seen >= HTML_LOOKAHEAD ? this.decide() : null;
  }

  /** Decision at end of body (or at the lookahead limit). */
  decide(): 'html' | 'text' {
    return this.seen > 0 && this.markup * 2 > this.seen ? 'html' : 'text';
  }
}

// The tag name must end there: `<header>` or `<html5>` is not a document start (rule 2 may still apply).
const DOCUMENT_START = /^<(?:!doctype|html|head|body|meta|title|script)(?![\w-])|^<(?:\?xml|!--)/i;

function looksLikeMarkup(s: string): boolean {
  return s.charCodeAt(0) === 60 || s.charCodeAt(s.length - 1) === 62;
}
