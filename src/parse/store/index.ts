/**
 * App-store listing pages → developer URL, bundle id, store id (app-ads.txt 1.0, "Crawl app
 * listing pages in app stores": read the `appstore:*` meta tags "using an appropriate HTML
 * parsing solution"). See store-page-scanner.ts and fallbacks.ts.
 */
import { performance } from 'node:perf_hooks';
import { StorePageScanner } from './store-page-scanner.js';
import type { StoreName, StorePageInfo, StorePageOptions } from './types.js';

export * from './types.js';

/** The reading passed `options.deadlineAt`. Parsers know no network: the caller maps it to its own timeout. */
export class StorePageDeadlineError extends Error {
  constructor() {
    super('whole-request deadline passed while reading the store page');
    this.name = 'StorePageDeadlineError';
  }
}

function scannerFor(store: StoreName, options: StorePageOptions): StorePageScanner {
  const fallbacks = options.fallbacks ?? 'auto';
  const collect = fallbacks === 'always' || (fallbacks === 'auto' && store !== 'google_play');
  let pageUrl: URL | null = null;
  try {
    pageUrl = options.pageUrl ? new URL(options.pageUrl) : null;
  } catch {
    pageUrl = null;
  }
  return new StorePageScanner(collect, pageUrl);
}

function result(s: StorePageScanner): StorePageInfo {
  const metaUrl = s.meta.get('developer_url');
  const bundleId = s.meta.get('bundle_id') || s.altIds.bundleId || null;
  const storeId = s.meta.get('store_id') || s.altIds.storeId || null;
  const hasAppstoreTags = metaUrl !== undefined && (s.meta.has('bundle_id') || s.meta.has('store_id'));
  if (metaUrl !== undefined) {
    // "Use an empty value for the developer_url meta tag's content attribute if no URL is
    // provided": an empty tag is an answer (not taking part), not a reason to look elsewhere.
    return { developerUrl: metaUrl, participates: metaUrl !== '', bundleId, storeId, source: 'meta', hasAppstoreTags };
  }
  const fromJsonLd = s.jsonLdUrls[0];
  if (fromJsonLd) return { developerUrl: fromJsonLd, participates: true, bundleId, storeId, source: 'json_ld', hasAppstoreTags };
  const fromLink = s.linkUrls[0];
  if (fromLink) return { developerUrl: fromLink, participates: true, bundleId, storeId, source: 'page_link', hasAppstoreTags };
  return { developerUrl: null, participates: false, bundleId, storeId, source: null, hasAppstoreTags };
}

/** Reads a store page held in memory. */
export function parseStorePageHtml(html: string, store: StoreName, options: StorePageOptions = {}): StorePageInfo {
  const s = scannerFor(store, options);
  s.write(html);
  s.end();
  return result(s);
}

/**
 * Reads a store page from its body bytes (UTF-8) or a string. Stops reading as soon as the
 * three appstore:* tags have been seen (on Google Play they sit in <head>, ~0.9 MB into a
 * 1.2 MB page), which also ends the download when `html` is a response body. With
 * `options.deadlineAt`, rejects with StorePageDeadlineError (and stops reading) when the
 * deadline has passed after a chunk.
 */
export async function parseStorePage(html: string | AsyncIterable<Uint8Array>, store: StoreName, options: StorePageOptions = {}): Promise<StorePageInfo> {
  if (typeof html === 'string') return parseStorePageHtml(html, store, options);
  const s = scannerFor(store, options);
  const decoder = new TextDecoder('utf-8');
  const deadlineAt = options.deadlineAt ?? null;
  const now = options.now ?? (() => performance.now());
  for await (const chunk of html) {
    s.write(decoder.decode(chunk, { stream: true }));
    if (s.complete) break;
    // Parsing is linear (html-reader.ts), but chunks already buffered are read back to back
    // without the event loop turning, so the deadline's timer cannot cut this loop: check here.
    if (deadlineAt !== null && now() >= deadlineAt) throw new StorePageDeadlineError();
  }
  if (!s.complete) s.write(decoder.decode());
  s.end();
  return result(s);
}
