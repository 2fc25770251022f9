/**
 * One robots.txt line → key and value (RFC 9309 §2.2; Google's spec "formal syntax").
 * Works on octet strings (one char per byte) so values keep their exact octets.
 *
 * Lenient where the reference implementation is, since RFC 9309 §2.3.1.5 asks crawlers to use
 * every parseable rule:
 * - `#` starts a comment anywhere; whitespace around key and value is dropped;
 * - a missing `:` is accepted when the line is exactly two whitespace-separated words
 *   (`disallow /x`);
 * - keys are case-insensitive and recognised by prefix, with the common misspellings Google
 *   accepts (`useragent`, `user agent`, `dissallow`, `disalow`, `site-map`, …).
 */

export type RobotsKeyKind = 'user-agent' | 'allow' | 'disallow' | 'sitemap' | 'other';

export interface RobotsLine {
  kind: RobotsKeyKind;
  /** The key as written (octets), trimmed. */
  key: string;
  /** The value (octets), trimmed, comment removed. */
  value: string;
  /** The key was accepted as a misspelling or a longer word starting with the name. */
  typo: boolean;
  /** Whitespace stood in for the missing `:`. */
  noColon: boolean;
}

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

function trimRange(s: string, start: number, end: number): string {
  while (start < end && isSpace(s.charCodeAt(start))) start++;
  while (end > start && isSpace(s.charCodeAt(end - 1))) end--;
  return s.slice(start, end);
}

const KEYS: readonly { kind: Exclude<RobotsKeyKind, 'other'>; canonical: string; prefixes: readonly string[] }[] = [
  { kind: 'user-agent', canonical: 'user-agent', prefixes: ['user-agent', 'useragent', 'user agent'] },
  { kind: 'allow', canonical: 'allow', prefixes: ['allow'] },
  { kind: 'disallow', canonical: 'disallow', prefixes: ['disallow', 'dissallow', 'dissalow', 'disalow', 'diasllow', 'disallaw'] },
  { kind: 'sitemap', canonical: 'sitemap', prefixes: ['sitemap', 'site-map'] },
];

/** Classifies a key; `typo` when it is not exactly the canonical name. */
export function classifyKey(key: string): { kind: RobotsKeyKind; typo: boolean } {
  const lower = key.toLowerCase();
  for (const k of KEYS) {
    for (const p of k.prefixes) {
      if (lower.startsWith(p)) return { kind: k.kind, typo: lower !== k.canonical };
    }
  }
  return { kind: 'other', typo: false };
}

/** Splits a line (octets, no line end) into key and value; null for blank, comment-only or unparseable lines. */
export function splitRobotsLine(line: string): RobotsLine | null {
  const hash = line.indexOf('#');
  const end = hash === -1 ? line.length : hash;
  let start = 0;
  let stop = end;
  while (start < stop && isSpace(line.charCodeAt(start))) start++;
  while (stop > start && isSpace(line.charCodeAt(stop - 1))) stop--;
  if (start === stop) return null;
  let sep = line.indexOf(':', start);
  if (sep >= stop) sep = -1;
  let noColon = false;
  let valueStart: number;
  if (sep === -1) {
    // Google leniency: `key value` with exactly two words stands for `key: value`.
    for (let i = start; i < stop; i++) {
      const c = line.charCodeAt(i);
      if (c === 32 || c === 9) {
        sep = i;
        break;
      }
    }
    if (sep === -1) return null;
    valueStart = sep;
    while (valueStart < stop && isSpace(line.charCodeAt(valueStart))) valueStart++;
    for (let i = valueStart; i < stop; i++) {
      const c = line.charCodeAt(i);
      if (c === 32 || c === 9) return null;
    }
    noColon = true;
  } else {
    valueStart = sep + 1;
  }
  const key = trimRange(line, start, sep);
  if (key.length === 0) return null;
  const value = trimRange(line, valueStart, stop);
  const { kind, typo } = classifyKey(key);
  return { kind, key, value, typo, noColon };
}
