/**
 * The usage signals of a home page's answer, beside its head (page-head.ts): robots directives
 * from meta tags and `X-Robots-Tag` fields (Google's "Robots meta tag, data-nosnippet, and
 * X-Robots-Tag specifications"), the `Content-Usage` header (draft-ietf-aipref-attach-05 §4,
 * read with the robots.txt rule's dictionary parser), and RSL licences named by a `Link` header
 * (RFC 8288 §3; RSL 1.0 `rel="license"`). Directives are kept as written, lower-cased:
 * `noai` and `noimageai` are no standard's words (DeviantArt proposed them in 2022; the IMC 2025
 * study "Somesite I Used To Crawl" counts them), so nothing is dropped for being unknown.
 */
import { parseDictionary } from '../robots/usage-signals.js';
import { RSL_MEDIA_TYPE } from './page-head.js';

export interface PageDirective {
  source: 'meta' | 'x-robots-tag' | 'content-usage';
  /** '*' when addressed to every agent; else the agent named, lower-cased. */
  userAgent: string;
  /** Lower-cased directive (`noai`, `noindex`, `max-snippet`) or Content-Usage key (`train-ai`). */
  directive: string;
  /** `max-snippet: 20` → '20'; a Content-Usage value (`y`, `n`); null for a bare directive. */
  value: string | null;
}

/** Directives that take a value after `:` (Google's specification): `name: value` is not an agent scope. */
const VALUE_DIRECTIVES: ReadonlySet<string> = new Set(['max-snippet', 'max-image-preview', 'max-video-preview', 'unavailable_after']);

function directive(source: PageDirective['source'], userAgent: string, item: string): PageDirective | null {
  const t = item.trim();
  if (t === '') return null;
  const colon = t.indexOf(':');
  if (colon < 0) return { source, userAgent, directive: t.toLowerCase(), value: null };
  return { source, userAgent, directive: t.slice(0, colon).trim().toLowerCase(), value: t.slice(colon + 1).trim() };
}

/** A robots meta tag's content: comma-separated directives for `agent` ('*' for name="robots"). */
export function metaDirectives(agent: string, content: string): PageDirective[] {
  const out: PageDirective[] = [];
  for (const item of content.split(',')) {
    const d = directive('meta', agent, item);
    if (d) out.push(d);
  }
  return out;
}

/**
 * `X-Robots-Tag` fields, each as served. A field may open with `agent:` (`googlebot: noindex`):
 * the directives after it, in the same field, are that agent's; a later `other: …` in the field
 * changes the agent. Without one, the directives are every agent's.
 */
export function xRobotsDirectives(fields: readonly string[]): PageDirective[] {
  const out: PageDirective[] = [];
  for (const field of fields) {
    let agent = '*';
    for (const part of field.split(',')) {
      let item = part;
      const scoped = /^\s*([A-Za-z0-9_.-]+)\s*:(.*)$/.exec(part);
      if (scoped && !VALUE_DIRECTIVES.has(scoped[1]!.toLowerCase())) {
        agent = scoped[1]!.toLowerCase();
        item = scoped[2]!;
      }
      const d = directive('x-robots-tag', agent, item);
      if (d) out.push(d);
    }
  }
  return out;
}

/** The Content-Usage header's preferences (a key given twice keeps its last value, RFC 9651 §4.2.2); null when it does not parse. */
export function contentUsageDirectives(header: string): PageDirective[] | null {
  const members = parseDictionary(header.trim());
  if (members === null || members.length === 0) return null;
  const last = new Map<string, string>();
  for (const [k, v] of members) {
    last.delete(k);
    last.set(k, v);
  }
  return [...last].map(([k, v]) => ({ source: 'content-usage', userAgent: '*', directive: k, value: v }));
}

/**
 * The URI-references of a `Link` header's links whose rel includes `license` and whose type, when
 * given, is RSL's media type (RFC 8288 §3: `<uri>; rel="license"; type="…"`), as written.
 */
export function licenseLinks(header: string): string[] {
  const out: string[] = [];
  const link = /<([^>]*)>((?:\s*;\s*[A-Za-z0-9!#$&+.^_`|~*-]+\s*(?:=\s*(?:"(?:[^"\\]|\\.)*"|[^;,]*))?)*)/g;
  for (let m = link.exec(header); m !== null; m = link.exec(header)) {
    const params = new Map<string, string>();
    for (const p of m[2]!.matchAll(/;\s*([A-Za-z0-9!#$&+.^_`|~*-]+)\s*(?:=\s*("(?:[^"\\]|\\.)*"|[^;,]*))?/g)) {
      const raw = (p[2] ?? '').trim();
      const name = p[1]!.toLowerCase();
      // RFC 8288 §3: a parameter given twice counts once, the first.
      if (!params.has(name)) params.set(name, raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw);
    }
    const rel = params.get('rel');
    const type = params.get('type');
    if (rel !== undefined && rel.toLowerCase().split(/\s+/).includes('license') && (type === undefined || type.trim().toLowerCase() === RSL_MEDIA_TYPE)) out.push(m[1]!.trim());
  }
  return out;
}
