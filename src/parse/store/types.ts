import type { StoreName } from '../../sources/store-id.js';

export type { StoreName };

/** Where a developer URL was read on a store page. */
export type DeveloperUrlSource = 'meta' | 'json_ld' | 'page_link';

export interface StorePageInfo {
  /**
   * Developer website URL. '' when the page carries `appstore:developer_url` with an empty
   * content (app-ads.txt 1.0: the app does not take part); null when the page gives none.
   */
  developerUrl: string | null;
  /** A non-empty developer URL was found: the app's app-ads.txt can be looked for. */
  participates: boolean;
  bundleId: string | null;
  storeId: string | null;
  /** Which part of the page gave `developerUrl`; null when none did. */
  source: DeveloperUrlSource | null;
  /**
   * The page carries the app-ads.txt meta tags as the spec asks: `appstore:developer_url`
   * plus `appstore:bundle_id` and/or `appstore:store_id`.
   */
  hasAppstoreTags: boolean;
}

export interface StorePageOptions {
  /**
   * Read what the page publishes besides the appstore:* tags (JSON-LD author URL, a
   * "Website" link) when the tags give no developer URL. 'auto': for every store except
   * Google Play, which publishes the tags (corpus/stores), so a Play page without them is
   * not an app page (developer and data-safety pages). @default 'auto'
   */
  fallbacks?: 'auto' | 'always' | 'never';
  /** URL of the page, to resolve relative links and tell store links from external ones. */
  pageUrl?: string;
  /**
   * Reading a response body (parseStorePage over chunks): the request's whole deadline
   * (ResponseMeta.deadlineAt, on `now`'s clock). Checked after each chunk is parsed: once it has
   * passed, reading stops and parseStorePage rejects with FetchFailure('timeout'), what the
   * deadline's own timer records when it can fire (it cannot while a chunk is being parsed).
   */
  deadlineAt?: number | null;
  /** The clock of `deadlineAt`. @default performance.now */
  now?: () => number;
}
