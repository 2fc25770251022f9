/**
 * A compiled allow/disallow pattern (RFC 9309 §2.2.2, §2.2.3). Matching starts at the path's
 * first octet; `*` matches any run of octets (also `/`); a final `$` anchors the end. A `$`
 * elsewhere was already written `%24` by normalisePattern, so it is literal.
 *
 * Patterns split at `*` into literal segments and are matched greedily left to right with
 * `indexOf`: linear in practice and never backtracking, so a hostile `/*a*a*a*…` cannot stall the
 * crawler, unlike a translation to RegExp.
 */
export interface PathPattern {
  /** RFC 9309 §2.2.2 "most octets": the normalised pattern's length, `*` and `$` included. */
  readonly priority: number;
  matches(path: string): boolean;
}

export function compilePattern(pattern: string): PathPattern {
  const priority = pattern.length;
  const anchored = pattern.endsWith('$');
  const body = anchored ? pattern.slice(0, -1) : pattern;
  if (!body.includes('*')) {
    return anchored ? { priority, matches: (p) => p === body } : { priority, matches: (p) => p.startsWith(body) };
  }
  const parts = body.split('*');
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  const middle = parts.slice(1, -1).filter((s) => s.length > 0);
  return {
    priority,
    matches(path: string): boolean {
      if (!path.startsWith(first)) return false;
      let pos = first.length;
      for (const seg of middle) {
        const at = path.indexOf(seg, pos);
        if (at === -1) return false;
        pos = at + seg.length;
      }
      if (anchored) return path.length - last.length >= pos && path.endsWith(last);
      return last.length === 0 || path.indexOf(last, pos) !== -1;
    },
  };
}
