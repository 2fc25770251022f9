import { FlatHtmlReader, type HtmlHandler } from './html-reader.js';
import { linkCandidate, jsonLdDeveloperUrl } from './fallbacks.js';

/**
 * Collects, from HTML read with htmlparser2's tokenizer (attribute order, quoting and entities as
 * browsers read them; html-reader.ts: no tree, so linear in the page whatever its nesting), what
 * a store page says about an app:
 * app-ads.txt 1.0 "Publish structured app information" meta tags
 * (`<meta name="appstore:developer_url|bundle_id|store_id" content="…">`), App Links / Smart
 * App Banner ids, JSON-LD blocks and "Website" links for stores that do not publish the tags.
 */

/** What reads the HTML into tag and text events (FlatHtmlReader; tests compare others). */
export interface HtmlReader {
  write(chunk: string): void;
  end(): void;
}

const MAX_JSON_LD_CHARS = 1 << 20;
const MAX_LINK_TEXT = 200;

export class StorePageScanner {
  readonly meta = new Map<string, string>();
  readonly jsonLdUrls: string[] = [];
  readonly linkUrls: string[] = [];
  /** App Links (`al:android:package`, `al:ios:app_store_id`) and Smart App Banner ids. */
  readonly altIds: { bundleId: string | null; storeId: string | null } = { bundleId: null, storeId: null };
  private readonly parser: HtmlReader;
  private jsonLd: string[] | null = null;
  private jsonLdLen = 0;
  private link: { href: string; aria: string; text: string } | null = null;

  constructor(
    private readonly collectFallbacks: boolean,
    private readonly pageUrl: URL | null,
    reader: (handler: HtmlHandler) => HtmlReader = (handler) => new FlatHtmlReader(handler),
  ) {
    this.parser = reader({
      onopentag: (name, attribs) => this.onOpenTag(name, attribs),
      ontext: (text) => this.onText(text),
      onclosetag: (name) => this.onCloseTag(name),
    });
  }

  /** All three appstore:* tags have been seen: nothing later on the page can change the answer. */
  get complete(): boolean {
    return this.meta.has('developer_url') && this.meta.has('bundle_id') && this.meta.has('store_id');
  }

  write(html: string): void {
    this.parser.write(html);
  }

  end(): void {
    this.parser.end();
    // What the end of the page leaves open ends with it.
    this.onCloseTag('script');
    this.onCloseTag('a');
  }

  private onOpenTag(name: string, a: Record<string, string>): void {
    if (name === 'meta') {
      const key = (a.name ?? a.property ?? '').trim().toLowerCase();
      const content = a.content;
      if (content === undefined) return;
      if (key.startsWith('appstore:')) {
        const field = key.slice('appstore:'.length);
        // The first tag of each name counts; a page repeating it later does not override it.
        if (!this.meta.has(field)) this.meta.set(field, content.trim());
      } else if (key === 'al:android:package') this.altIds.bundleId ??= content.trim() || null;
      else if (key === 'al:ios:app_store_id') this.altIds.storeId ??= content.trim() || null;
      else if (key === 'apple-itunes-app') this.altIds.storeId ??= /app-id=(\d+)/.exec(content)?.[1] ?? null;
      return;
    }
    if (!this.collectFallbacks) return;
    if (name === 'script' && (a.type ?? '').trim().toLowerCase() === 'application/ld+json') {
      this.jsonLd = [];
      this.jsonLdLen = 0;
    } else if (name === 'a') {
      // Links do not nest: an <a> ends the one still open (as in the HTML tree builder).
      this.onCloseTag('a');
      if (a.href) this.link = { href: a.href, aria: a['aria-label'] ?? a.title ?? '', text: '' };
    }
  }

  private onText(text: string): void {
    if (this.jsonLd) {
      this.jsonLdLen += text.length;
      if (this.jsonLdLen <= MAX_JSON_LD_CHARS) this.jsonLd.push(text);
    } else if (this.link && this.link.text.length < MAX_LINK_TEXT) this.link.text += text;
  }

  private onCloseTag(name: string): void {
    if (name === 'script' && this.jsonLd) {
      if (this.jsonLdLen <= MAX_JSON_LD_CHARS) {
        const url = jsonLdDeveloperUrl(this.jsonLd.join(''), this.pageUrl);
        if (url) this.jsonLdUrls.push(url);
      }
      this.jsonLd = null;
    } else if (name === 'a' && this.link) {
      const url = linkCandidate(this.link.href, this.link.text, this.link.aria, this.pageUrl);
      if (url) this.linkUrls.push(url);
      this.link = null;
    }
  }
}
