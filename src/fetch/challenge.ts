/**
 * Bot walls (docs/guide/operating.md#bot-walls): an answer that is a CDN's challenge or block page rather than the
 * site's own answer. Such a page says nothing about the file asked for (a 403 from the site
 * itself is `unauthorized`; a challenge page is `blocked`, contract §3), so the fetch layer
 * recognises it and gives the chain the error `challenge`.
 *
 * Headers decide first (cheap, and the vendors document them); only when they do not, and the
 * status is one a wall answers with, a bounded look at the start of the body decides
 * (`CHALLENGE_PEEK_BYTES`, never the whole body). Markers are vendor strings that a site's own
 * page does not carry; each names where it is documented or observed.
 */

type Headers = Record<string, string | string[] | undefined>;

/** Bytes of a body looked at for a challenge marker: the interstitials put them in <head>. */
export const CHALLENGE_PEEK_BYTES = 16 * 1024;

/** The vendors told apart (counted per vendor in the run manifest). */
export type WallVendor = 'cloudflare' | 'akamai' | 'imperva' | 'datadome' | 'aws_waf' | 'perimeterx' | 'sucuri';

function h(headers: Headers, name: string): string {
  const v = headers[name];
  return (Array.isArray(v) ? v.join(', ') : (v ?? '')).toLowerCase();
}

/**
 * A challenge decided by headers alone, whatever the status (AWS WAF's challenge is a 202).
 * - Cloudflare: `cf-mitigated: challenge` marks a challenge page (Cloudflare docs, "Detect a
 *   Challenge Page response").
 * - AWS WAF: `x-amzn-waf-action: challenge` or `captcha` (AWS WAF developer guide, "CAPTCHA and
 *   Challenge actions": the response carries this header).
 * - Sucuri: `x-sucuri-block` on its firewall's block page.
 * - DataDome: a 403 with `x-datadome` / `x-dd-b` is its block or captcha answer.
 */
export function challengeFromHeaders(status: number, headers: Headers): WallVendor | null {
  if (h(headers, 'cf-mitigated') === 'challenge') return 'cloudflare';
  const waf = h(headers, 'x-amzn-waf-action');
  if (waf === 'challenge' || waf === 'captcha') return 'aws_waf';
  if (headers['x-sucuri-block'] !== undefined) return 'sucuri';
  if ((status === 403 || status === 429) && (headers['x-datadome'] !== undefined || headers['x-dd-b'] !== undefined)) return 'datadome';
  return null;
}

/**
 * A 2xx HTML answer is looked at too: walls also answer 200 (robots/ in the shared corpus holds
 * 11 interstitials of distinct sites among 4,958 first captures, each saved as a robots.txt: 4
 * Cloudflare, 2 DataDome, 5 Imperva).
 */
export function isHtmlType(contentType: string | null): boolean {
  return contentType !== null && /html/i.test(contentType);
}

/** Statuses a wall answers with, worth a look at the body (RFC 9110 §15.5.4 403, §15.6.4 503; RFC 6585 §4 429). */
export function mayBeChallenge(status: number): boolean {
  return status === 403 || status === 503 || status === 429 || status === 401 || status === 405;
}

/**
 * Markers in the first bytes of an interstitial. Each is a vendor's own resource name, not
 * prose a site would write:
 * - Cloudflare: the `cf-chl` / `_cf_chl_opt` challenge scripts, `/cdn-cgi/challenge-platform/`,
 *   and the "Just a moment..." title of the managed challenge.
 * - Imperva (Incapsula): `_Incapsula_Resource` and "Incapsula incident ID".
 * - DataDome: its captcha host `captcha-delivery.com`.
 * - PerimeterX (HUMAN): `_pxCaptcha` / `px-captcha`.
 * - AWS WAF: the `AwsWafIntegration` challenge script.
 * - Akamai: the "Access Denied" page of its edge, which links `errors.edgesuite.net`.
 * - Sucuri: "Sucuri WebSite Firewall".
 */
const BODY_MARKERS: ReadonlyArray<readonly [WallVendor, RegExp]> = [
  ['cloudflare', /cf-chl|_cf_chl_opt|\/cdn-cgi\/challenge-platform\/|<title>just a moment\.\.\.<\/title>/i],
  ['imperva', /_Incapsula_Resource|Incapsula incident ID/i],
  ['datadome', /captcha-delivery\.com/i],
  ['perimeterx', /_pxCaptcha|px-captcha/i],
  ['aws_waf', /AwsWafIntegration/],
  ['akamai', /errors\.edgesuite\.net/i],
  ['sucuri', /Sucuri WebSite Firewall/i],
];

/**
 * A challenge recognised in the first bytes of a body (latin1 is enough: the markers are ASCII).
 * Only an HTML page can be one: a robots.txt that disallows `/_Incapsula_Resource` (the corpus
 * has one) is the site's own file.
 */
export function challengeFromBody(head: Uint8Array): WallVendor | null {
  const text = Buffer.from(head.buffer, head.byteOffset, Math.min(head.byteLength, CHALLENGE_PEEK_BYTES)).toString('latin1');
  if (!/^(\xef\xbb\xbf)?\s*</.test(text)) return null;
  for (const [vendor, re] of BODY_MARKERS) if (re.test(text)) return vendor;
  return null;
}
