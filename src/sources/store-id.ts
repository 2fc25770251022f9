import { isValidDnsName, toAsciiHost } from '../util/domain.js';

/**
 * Recognises app-store listing URLs and keys each app by (store host, bundle or store id), as
 * app-ads.txt 1.0 "Authoritative and canonical representation in app stores" recommends
 * ("itunes.apple.com:343200656 => rovio.com"): country paths, slugs and tracking parameters
 * vary, the id does not. The spec also says store URLs are opaque; this reading of their
 * structure is only for deduplication and the URL to fetch; the page's own
 * appstore:bundle_id / appstore:store_id remain authoritative.
 */

export type StoreName = 'google_play' | 'apple' | 'roku' | 'amazon' | 'samsung' | 'lg' | 'microsoft' | 'huawei' | 'xiaomi' | 'other';

export interface RecognizedStoreUrl {
  store: StoreName;
  /** Canonical store host used in the key (e.g. apps.apple.com for itunes.apple.com too). */
  storeHost: string;
  bundleId: string | null;
  storeId: string | null;
  /** The listing URL to fetch: stable for one app whatever variant was given. */
  canonicalUrl: string;
  /** `${storeHost}/${id}`; for 'other', the normalized URL without scheme. */
  appKey: string;
}

// Android/iOS package names: dot-separated identifiers (reverse DNS).
const BUNDLE = /^[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z0-9_-]+)+$/;
const ASIN = /^[A-Z0-9]{10}$/;
const TRACKING = /^(utm_.*|gclid|fbclid|msclkid|dclid|mc_cid|mc_eid|_ga|igshid|ref|ref_src|referrer|src|si)$/i;

function found(store: StoreName, storeHost: string, id: string, bundleId: string | null, storeId: string | null, canonicalUrl: string): RecognizedStoreUrl {
  return { store, storeHost, bundleId, storeId, canonicalUrl, appKey: `${storeHost}/${id}` };
}

/** Parses a store URL leniently: a missing scheme means https; `market://details?id=` is Google Play. */
function parseUrl(raw: string): URL | null {
  let s = raw.trim();
  if (s === '') return null;
  if (/^market:\/\//i.test(s)) s = `https://play.google.com/store/apps/${s.replace(/^market:\/\//i, '')}`;
  else if (/^itms-apps:\/\//i.test(s)) s = `https://${s.slice('itms-apps://'.length)}`;
  else if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) {
    // `mailto:…`, `javascript:…`: another scheme, not a host without one (`host:port/…` is fine).
    if (/^[a-z][a-z0-9+.-]*:/i.test(s) && !/^[^:/]+:\d+(?:[/?#]|$)/.test(s)) return null;
    s = `https://${s.replace(/^\/\//, '')}`;
  }
  try {
    const u = new URL(s);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u : null;
  } catch {
    return null;
  }
}

/** A listing URL, parsed: its host, the host without `www.`, path, query and fragment. */
interface Listing {
  host: string;
  bare: string;
  path: string;
  q: URLSearchParams;
  hash: string;
}

/** One known store: the hosts it answers on, and how a listing's ids are read (null: not an app listing). */
interface StoreReader {
  hosts(bare: string): boolean;
  read(l: Listing): RecognizedStoreUrl | null;
}

const STORE_READERS: readonly StoreReader[] = [
  {
    // Google Play: /store/apps/details?id=BUNDLE (store_id = bundle_id on Play pages).
    hosts: (bare) => bare === 'play.google.com' || bare === 'market.android.com',
    read: ({ path, q }) => {
      const id = q.get('id')?.trim() ?? '';
      if (!/^\/store\/apps\/details(?:\/[^/]*)?\/?$/.test(path) && !/^\/details\/?$/.test(path)) return null;
      if (!BUNDLE.test(id)) return null;
      return found('google_play', 'play.google.com', id, id, id, `https://play.google.com/store/apps/details?id=${encodeURIComponent(id)}`);
    },
  },
  {
    // Apple: apps.apple.com/<cc>/app/<slug>/id<digits>, itunes.apple.com/…/id<digits> or ?id=<digits>.
    hosts: (bare) => bare === 'apps.apple.com' || bare === 'itunes.apple.com',
    read: ({ path, q }) => {
      const m = /\/id(\d{5,})(?:[/?#]|$)/.exec(path) ?? (/\/app(?:\/|$)/.test(path) ? /^(\d{5,})$/.exec(q.get('id') ?? '') : null);
      if (!m) return null;
      const cc = /^\/([a-z]{2})\//i.exec(path)?.[1]?.toLowerCase() ?? 'us';
      // The slug is kept when given: some servers (simweb among them) route only /<cc>/app/<slug>/id<N>.
      const slug = /\/app\/([^/]+)\/id\d+/.exec(path)?.[1];
      const slugPart = slug && slug !== '-' ? `${slug}/` : '';
      return found('apple', 'apps.apple.com', m[1]!, null, m[1]!, `https://apps.apple.com/${cc}/app/${slugPart}id${m[1]}`);
    },
  },
  {
    // Roku: channelstore.roku.com/[<locale>/]details/<id>[/<slug>].
    hosts: (bare) => bare === 'channelstore.roku.com',
    read: ({ path }) => {
      const m = /^(?:\/[a-z]{2}(?:-[a-z]{2})?)?\/details\/([A-Za-z0-9_-]+)(?:\/|$)/i.exec(path);
      return m ? found('roku', 'channelstore.roku.com', m[1]!, null, m[1]!, `https://channelstore.roku.com/details/${m[1]}`) : null;
    },
  },
  {
    // Amazon Appstore: amazon.<tld>/[<slug>/]dp/<ASIN>, /gp/product/<ASIN>, /gp/mas/dl/android?asin=<ASIN>.
    hosts: (bare) => /^amazon\.(?:com|ca|co\.uk|de|fr|it|es|co\.jp|in|com\.au|com\.br|com\.mx)$/.test(bare),
    read: ({ bare, path, q }) => {
      const m = /\/(?:dp|gp\/product|gp\/aw\/d)\/([A-Za-z0-9]{10})(?:[/?#]|$)/.exec(path);
      const asin = (m?.[1] ?? q.get('asin') ?? '').toUpperCase();
      return ASIN.test(asin) ? found('amazon', bare, asin, null, asin, `https://www.${bare}/dp/${asin}`) : null;
    },
  },
  {
    // Samsung Galaxy Store: galaxystore.samsung.com/detail/<bundle>, apps.samsung.com/appquery/appDetail.as?appId=<bundle>.
    hosts: (bare) => bare === 'galaxystore.samsung.com' || bare === 'apps.samsung.com',
    read: ({ path, q }) => {
      const id = /^\/(?:[a-z]{2}\/)?(?:detail|appquery\/appdetail\.as)\/?([^/?#]*)/i.exec(path)?.[1] || q.get('appId') || '';
      return BUNDLE.test(id) ? found('samsung', 'galaxystore.samsung.com', id, id, id, `https://galaxystore.samsung.com/detail/${id}`) : null;
    },
  },
  {
    // Samsung TV apps: samsung.com/<cc>/appstore/app/<G-id>.
    hosts: (bare) => bare === 'samsung.com',
    read: ({ path }) => {
      const m = /^\/[a-z]{2}(?:_[a-z]{2})?\/appstore\/app\/([A-Za-z0-9]+)\/?$/i.exec(path);
      return m ? found('samsung', 'samsung.com', m[1]!, null, m[1]!, `https://www.samsung.com/us/appstore/app/${m[1]}`) : null;
    },
  },
  {
    // LG Content Store (webOS TV): <cc>.lgappstv.com/main/tvapp/detail?appId=<digits>.
    hosts: (bare) => /(?:^|\.)lgappstv\.com$/.test(bare),
    read: ({ host, path, q }) => {
      const id = q.get('appId') ?? '';
      if (!/^\d+$/.test(id) || !/\/detail\/?$/i.test(path)) return null;
      return found('lg', 'lgappstv.com', id, null, id, `https://${host}/main/tvapp/detail?appId=${id}`);
    },
  },
  {
    // Microsoft Store: apps.microsoft.com/[store/]detail/[<slug>/]<12-char id>, microsoft.com/<locale>/p/<slug>/<id>.
    hosts: (bare) => bare === 'apps.microsoft.com' || bare === 'microsoft.com',
    read: ({ path }) => {
      const m = /\/(?:detail|p)\/(?:[^/]+\/)?([A-Za-z0-9]{12})\/?$/.exec(path);
      if (!m) return null;
      const id = m[1]!.toUpperCase();
      return found('microsoft', 'apps.microsoft.com', id, null, id, `https://apps.microsoft.com/detail/${id.toLowerCase()}`);
    },
  },
  {
    // Huawei AppGallery: appgallery.huawei.com/app/C<digits> (also in the #/app/ fragment form).
    hosts: (bare) => bare === 'appgallery.huawei.com' || bare === 'appgallery.cloud.huawei.com',
    read: ({ path, hash }) => {
      const m = /\/app\/(C\d+)/i.exec(path + hash);
      if (!m) return null;
      const id = m[1]!.toUpperCase();
      return found('huawei', 'appgallery.huawei.com', id, null, id, `https://appgallery.huawei.com/app/${id}`);
    },
  },
  {
    // Xiaomi GetApps: app.mi.com/details?id=<bundle>.
    hosts: (bare) => bare === 'app.mi.com' || bare === 'global.app.mi.com',
    read: ({ q }) => {
      const id = q.get('id') ?? '';
      return BUNDLE.test(id) ? found('xiaomi', 'app.mi.com', id, id, id, `https://app.mi.com/details?id=${id}`) : null;
    },
  },
];

/**
 * Store, ids, key and canonical URL of a listing URL; null when it is not a usable URL or is a
 * known store's page that is not an app listing (a developer page, a search, …).
 * Unknown hosts are store 'other', keyed by the normalized URL.
 */
export function recognizeStoreUrl(url: string): RecognizedStoreUrl | null {
  const u = parseUrl(url);
  if (u === null) return null;
  const host = toAsciiHost(u.hostname);
  if (host === '') return null;
  const listing: Listing = { host, bare: host.replace(/^www\./, ''), path: u.pathname, q: u.searchParams, hash: u.hash };
  const store = STORE_READERS.find((r) => r.hosts(listing.bare));
  if (store) return store.read(listing);
  if (!isValidDnsName(host)) return null;
  const { path, q } = listing;
  // Anything else: one app per normalized URL (scheme, fragment, tracking parameters and
  // parameter order do not make a different app).
  const kept = [...q.entries()].filter(([k]) => !TRACKING.test(k)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const query = kept.length ? `?${new URLSearchParams(kept).toString()}` : '';
  const port = u.port ? `:${u.port}` : '';
  const normalized = `${host}${port}${path}${query}`;
  return { store: 'other', storeHost: host, bundleId: null, storeId: null, canonicalUrl: `${u.protocol}//${normalized}`, appKey: normalized };
}
