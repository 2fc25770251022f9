/**
 * What a store page publishes when it lacks the app-ads.txt meta tags (brief: "use what its
 * page does publish and record which source gave the URL"):
 * - JSON-LD (schema.org SoftwareApplication / MobileApplication …): `author.url` or
 *   `publisher.url`, as Google Play also publishes it (corpus/stores);
 * - a link whose text or label says "Website" / "Developer Website" (Apple, Amazon, Play).
 * URLs back into the store itself (a developer's store page) are not developer websites.
 */

const APP_TYPES = new Set(['softwareapplication', 'mobileapplication', 'videogame', 'webapplication']);
const WEBSITE_LABEL = /^(?:visit\s+)?(?:the\s+)?(?:developer(?:'s|s)?\s+)?web\s?site\b/i;

/** Absolute http(s) URL of `href` (relative to `base`), unwrapping store redirectors; null otherwise. */
function absoluteExternal(href: string, base: URL | null): string | null {
  let u: URL;
  try {
    u = base ? new URL(href, base) : new URL(href);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  if (base && sameSite(u.hostname, base.hostname)) {
    // Redirectors (`/url?q=…`, `/gp/redirect.html?location=…`) wrap the real target.
    for (const p of ['q', 'url', 'location', 'u']) {
      const inner = u.searchParams.get(p);
      if (inner && /^https?:\/\//i.test(inner)) return absoluteExternal(inner, base);
    }
    return null;
  }
  // Keep what the page wrote when it was already absolute (the meta tag is kept as written too).
  return /^https?:\/\//i.test(href.trim()) ? href.trim() : u.href;
}

function sameSite(a: string, b: string): boolean {
  const strip = (h: string) => h.toLowerCase().replace(/^www\./, '');
  return strip(a) === strip(b);
}

/** Store hosts whose pages are never a developer's website. */
function isStoreHost(host: string): boolean {
  return /(?:^|\.)(?:play\.google\.com|apps\.apple\.com|itunes\.apple\.com|channelstore\.roku\.com|galaxystore\.samsung\.com|apps\.samsung\.com|apps\.microsoft\.com|appgallery\.huawei\.com)$/i.test(host);
}

function externalUrl(href: string, base: URL | null): string | null {
  const url = absoluteExternal(href, base);
  if (url === null) return null;
  return isStoreHost(new URL(url).hostname) ? null : url;
}

/** The developer URL a JSON-LD block states for the app, or null. */
export function jsonLdDeveloperUrl(json: string, base: URL | null): string | null {
  let doc: unknown;
  try {
    doc = JSON.parse(json);
  } catch {
    return null;
  }
  const nodes: unknown[] = Array.isArray(doc) ? doc : [doc];
  const graph = (doc as { '@graph'?: unknown })?.['@graph'];
  if (Array.isArray(graph)) nodes.push(...graph);
  for (const node of nodes) {
    if (node === null || typeof node !== 'object') continue;
    const n = node as Record<string, unknown>;
    const types = ([] as unknown[]).concat(n['@type'] ?? []).map((t) => String(t).toLowerCase());
    if (!types.some((t) => APP_TYPES.has(t))) continue;
    for (const who of ['author', 'publisher', 'creator']) {
      for (const party of ([] as unknown[]).concat(n[who] ?? [])) {
        const url = (party as { url?: unknown } | null)?.url;
        if (typeof url === 'string') {
          const ext = externalUrl(url, base);
          if (ext) return ext;
        }
      }
    }
  }
  return null;
}

/** The URL of a link labelled as the developer's website, or null. */
export function linkCandidate(href: string, text: string, aria: string, base: URL | null): string | null {
  const label = text.replace(/\s+/g, ' ').trim();
  if (!WEBSITE_LABEL.test(label) && !WEBSITE_LABEL.test(aria.trim())) return null;
  return externalUrl(href, base);
}
