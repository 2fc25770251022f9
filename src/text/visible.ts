/**
 * Text from the web made safe to print on a terminal: every control character is shown as an
 * escape (`\x1b`, `\u009b`, `\u202e`), never sent as it is, so an ads.txt line or a seller name
 * holding an ANSI escape sequence (ECMA-48: ESC `[` … or the 8-bit CSI U+009B) cannot move the
 * cursor, recolour, retitle the window or hide what follows, and a bidirectional override
 * (Unicode UAX #9; CVE-2021-42574, "Trojan Source") cannot reorder what is read.
 *
 * Shown: C0 controls (U+0000–U+001F), DEL and the C1 controls (U+007F–U+009F), the bidi
 * embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), the line and paragraph
 * separators (U+2028, U+2029), and lone surrogates. A backslash is left as it is: the output is
 * for reading, not a format to parse back.
 */
// Lone surrogates are matched with the `u` flag off: a high surrogate not followed by a low one, or a low one not after a high.
const SHOWN = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const NAMED: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function escapeOf(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const code = ch.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** The text with every control character, bidi control and lone surrogate shown as an escape. */
export function visible(text: string): string {
  return text.replace(SHOWN, escapeOf);
}

/** As `visible`, but line ends (LF, CRLF) kept: for multi-line messages printed as lines. */
export function visibleLines(text: string): string {
  return text.split(/\r?\n/).map(visible).join('\n');
}
