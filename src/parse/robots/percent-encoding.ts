/**
 * RFC 9309 §2.2.2 / §2.2.3: paths are compared as octets after percent-encoding is normalised.
 * Both sides — the rule's pattern and the URL's path — go through the same steps so that two
 * spellings of one URI compare equal:
 *
 * - octets outside ASCII are percent-encoded (`ツ` → `%E3%83%84`), as the RFC requires;
 * - octets that may not appear raw in a URI (controls, space, `"<>\^\`{|}`) are percent-encoded,
 *   as a browser or WHATWG URL would send them;
 * - `%xx` escapes are upper-cased (`%aa` → `%AA`); an escape of an unreserved character
 *   (RFC 3986 §2.3: ALPHA DIGIT - . _ ~) is decoded (`%62%61%7A` → `baz`, RFC 9309 Figure 4);
 *   escapes of reserved characters stay encoded, so `%2F` never equals `/`;
 * - in a URL, `*` and `$` are written `%2A` and `%24`, and in a pattern a `$` that is not the
 *   final end anchor is written `%24`: a pattern matches those characters literally only when it
 *   spells them percent-encoded (RFC 9309 §2.2.3, Figure 6).
 *
 * Inputs are "octet strings": one char per byte (a latin1 view of the body), so no decoding is
 * needed and invalid UTF-8 in a robots.txt keeps its exact octets.
 */

const HEX = '0123456789ABCDEF';

function hexVal(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 65 && c <= 70) return c - 55;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}

function isUnreserved(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 45 || c === 46 || c === 95 || c === 126;
}

/** Octets that are never raw in a URI: encode them so raw and encoded spellings compare equal. */
function mustEncode(c: number): boolean {
  return c <= 0x20 || c >= 0x7f || c === 34 || c === 60 || c === 62 || c === 92 || c === 94 || c === 96 || c === 123 || c === 124 || c === 125;
}

function pct(c: number): string {
  return '%' + HEX[c >> 4] + HEX[c & 15];
}

// Fast path: strings made only of these characters are already normal in either mode.
const NEEDS_WORK = /[^A-Za-z0-9\-._~!&'()+,;=:@/?]/;

function normalise(octets: string, url: boolean): string {
  let out = '';
  const n = octets.length;
  for (let i = 0; i < n; i++) {
    const c = octets.charCodeAt(i);
    if (c === 37 /* % */ && i + 2 < n) {
      const h = hexVal(octets.charCodeAt(i + 1));
      const l = hexVal(octets.charCodeAt(i + 2));
      if (h >= 0 && l >= 0) {
        const v = h * 16 + l;
        out += isUnreserved(v) ? String.fromCharCode(v) : pct(v);
        i += 2;
        continue;
      }
      out += '%';
    } else if (mustEncode(c)) {
      out += pct(c);
    } else if (c === 42 /* * */) {
      out += url ? '%2A' : '*';
    } else if (c === 36 /* $ */) {
      out += url || i !== n - 1 ? '%24' : '$';
    } else {
      out += octets[i];
    }
  }
  return out;
}

/** Normalises a rule's path pattern given as an octet string (see module comment). */
export function normalisePattern(octets: string): string {
  return NEEDS_WORK.test(octets) ? normalise(octets, false) : octets;
}

/** Normalises a URL path (+ query) given as an ordinary JS string; non-ASCII is UTF-8 encoded. */
export function normaliseUrlPath(path: string): string {
  if (!NEEDS_WORK.test(path)) return path;
  // eslint-disable-next-line no-control-regex
  const octets = /[^\x00-\x7f]/.test(path) ? Buffer.from(path, 'utf8').toString('latin1') : path;
  return normalise(octets, true);
}


/**
 * Google's reading of a rule's value (its reference's pattern escaping): `%xx` escapes are
 * upper-cased and octets above 0x7F are percent-encoded; nothing is decoded and nothing else is
 * encoded, so `*`, `$`, spaces and controls stay as written. Works on octets, like normalisePattern.
 */
export function escapeGooglePattern(octets: string): string {
  if (!GOOGLE_NEEDS_WORK.test(octets)) return octets;
  let out = '';
  const n = octets.length;
  for (let i = 0; i < n; i++) {
    const c = octets.charCodeAt(i);
    if (c === 37 /* % */ && i + 2 < n && hexVal(octets.charCodeAt(i + 1)) >= 0 && hexVal(octets.charCodeAt(i + 2)) >= 0) {
      out += '%' + octets[i + 1]!.toUpperCase() + octets[i + 2]!.toUpperCase();
      i += 2;
    } else if (c >= 0x80) {
      out += pct(c);
    } else {
      out += octets[i];
    }
  }
  return out;
}

// eslint-disable-next-line no-control-regex
const GOOGLE_NEEDS_WORK = /[%\x80-\xff]/;
// eslint-disable-next-line no-control-regex
const NUL_OR_NON_ASCII = /[^\x01-\x7f]/;

/**
 * A URL path as the octets a client sends, for Google's reading: compared as given, no
 * percent-encoding normalised; only a JS string's non-ASCII characters become their UTF-8 octets.
 * The reference holds the path as a C string, so a NUL ends it.
 */
export function urlPathOctets(path: string): string {
  if (!NUL_OR_NON_ASCII.test(path)) return path;
  const nul = path.indexOf('\0');
  const cut = nul === -1 ? path : path.slice(0, nul);
  return Buffer.from(cut, 'utf8').toString('latin1');
}
