/**
 * User-agent values (RFC 9309 §2.2.1). A product token is letters, `_` and `-`; matching is
 * case-insensitive. A group's user-agent value is matched on its leading token characters, so
 * `googlebot/1.2` and `googlebot*` both name `googlebot` (Google's spec: "user-agent matching").
 */

function isTokenChar(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45 || c === 95;
}

/** True for a value naming every crawler: `*`, or `*` followed by whitespace and anything (Google leniency). */
export function isGlobalAgent(value: string): boolean {
  if (value.charCodeAt(0) !== 42) return false;
  if (value.length === 1) return true;
  const c = value.charCodeAt(1);
  return c === 32 || c === 9 || c === 11 || c === 12;
}

/** The leading product-token characters of a user-agent value, lower-cased ('' when there are none). */
export function productTokenOf(value: string): string {
  let i = 0;
  while (i < value.length && isTokenChar(value.charCodeAt(i))) i++;
  return value.slice(0, i).toLowerCase();
}

/** RFC 9309 §2.2.1: a product token a crawler may use — non-empty, only `a-zA-Z_-`. */
export function isValidProductToken(token: string | null | undefined): boolean {
  if (!token) return false;
  for (let i = 0; i < token.length; i++) if (!isTokenChar(token.charCodeAt(i))) return false;
  return true;
}
