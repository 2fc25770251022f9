/**
 * Strings that outlive the text they were cut from.
 *
 * V8 represents a substring of 13 or more characters as a view on its parent (a "sliced
 * string"), and the view keeps the whole parent alive. The parsers cut fields out of decoded
 * body chunks (up to 64 KiB each) and list chunks (256 KiB), so an account id or a domain name
 * kept anywhere long-lived (a writer's row batch, a cache, a per-run set) would keep its whole
 * chunk in memory. In a crawl, one such field per file pinned hundreds of ads.txt bodies.
 */

/**
 * A copy of `s` that does not keep a larger string alive. Concatenation makes a cons string,
 * and slicing that flattens it into a new buffer of `s.length + 1` characters first, so the
 * result's parent is that small buffer (~70 ns for a 20-character string). Short strings are
 * returned as they are: V8 copies substrings under 13 characters anyway.
 */
export function detach(s: string): string {
  return s.length < 13 ? s : (' ' + s).slice(1);
}

/** A `Set` of strings that stores its own copies (`detach`): for sets that live as long as a run. */
export class OwnStringSet extends Set<string> {
  override add(s: string): this {
    return this.has(s) ? this : super.add(detach(s));
  }
}
