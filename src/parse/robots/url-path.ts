/**
 * The part of a URL that robots.txt rules are matched against: path, params and query, without
 * the fragment (RFC 9309 §2.2.2 matches "the path"; Google's reference keeps the query, and so do
 * we, since rules such as `Disallow: /*?sessionid=` depend on it).
 *
 * Accepts an absolute URL (`https://h/a?b`), a scheme-less one (`h/a`, `//h/a`) or a bare path
 * (`/a?b`), as Google's reference tool does, without a URL parser: a URL that WHATWG would reject
 * still has a path to check. The result always starts with `/`.
 */
export function pathFromUrl(url: string): string {
  // Fast path: a bare path with no fragment is its own answer.
  if (url.charCodeAt(0) === 47 /* / */ && url.charCodeAt(1) !== 47 && url.indexOf('#') === -1) return url;
  // `//host/path`: the two leading slashes introduce an authority, not a path.
  const searchStart = url.startsWith('//') ? 2 : 0;
  const earlyPath = firstOf(url, searchStart);
  let protocolEnd = url.indexOf('://', searchStart);
  // A `/`, `?` or `;` before `://` means the `://` is inside the path or query, not a scheme.
  if (protocolEnd === -1 || (earlyPath !== -1 && earlyPath < protocolEnd)) protocolEnd = searchStart;
  else protocolEnd += 3;
  const pathStart = firstOf(url, protocolEnd);
  if (pathStart === -1) return '/';
  const hash = url.indexOf('#', searchStart);
  if (hash !== -1 && hash < pathStart) return '/';
  const path = url.slice(pathStart, hash === -1 ? url.length : hash);
  // `host?q` has the query `?q` on the root path.
  return path.charCodeAt(0) === 47 ? path : '/' + path;
}

/** Index of the first `/`, `?` or `;` at or after `from`, or -1. */
function firstOf(s: string, from: number): number {
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 47 || c === 63 || c === 59) return i;
  }
  return -1;
}
