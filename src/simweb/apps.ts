/**
 * Synthetic apps and their store pages. App j is published by developer `j / APPS_PER_DEVELOPER`
 * on Google Play or the App Store; its listing carries the app-ads.txt 1.0 meta tags
 * (`appstore:developer_url`, `appstore:bundle_id`, `appstore:store_id`). The developer URL points
 * at the developer's apex, its www host, or a subdomain that has no file of its own (so the
 * crawler must fall back to the parent, app-ads.txt 1.0 Appendix A), or is empty.
 */
import { ANDROID_SHARE, APPS_PER_DEVELOPER, DEVELOPER_URL_WEIGHTS } from './calibration.js';
import { syntheticName } from './names.js';
import { Rng, word } from './prng.js';

export type DeveloperUrlKind = keyof typeof DEVELOPER_URL_WEIGHTS;

export interface AppSpec {
  index: number;
  store: 'google_play' | 'apple';
  storeUrl: string;
  bundleId: string;
  storeId: string;
  name: string;
  developer: string;
  developerUrlKind: DeveloperUrlKind;
  /** '' when the listing gives none (app-ads.txt 1.0: an empty content attribute). */
  developerUrl: string;
  /** Host the crawl should end up reading app-ads.txt from (null when there is no developer URL). */
  expectedSubject: string | null;
}

export const PLAY_HOST = 'play.google.com';
export const APPLE_HOST = 'apps.apple.com';
const APPLE_ID_BASE = 1_000_000_000;

export function appSpec(seed: number, index: number): AppSpec {
  const rng = Rng.for(seed, 'app', String(index));
  const devIndex = Math.floor(index / APPS_PER_DEVELOPER);
  const developer = syntheticName(seed, 'developer', devIndex);
  const devWord = developer.slice(0, developer.indexOf('-'));
  const appWord = word(rng);
  const bundleId = `com.${devWord}.${appWord}${index}`;
  const android = rng.chance(ANDROID_SHARE);
  const storeId = android ? bundleId : `id${APPLE_ID_BASE + index}`;
  const storeUrl = android ? `https://${PLAY_HOST}/store/apps/details?id=${bundleId}` : `https://${APPLE_HOST}/us/app/${appWord}/${storeId}`;
  const developerUrlKind = rng.weighted(DEVELOPER_URL_WEIGHTS);
  const developerUrl =
    developerUrlKind === 'empty' ? '' :
    developerUrlKind === 'www' ? `https://www.${developer}/` :
    developerUrlKind === 'subdomain' ? `https://games.${developer}/${appWord}` : `https://${developer}/`;
  return {
    index, store: android ? 'google_play' : 'apple', storeUrl, bundleId, storeId, name: appWord[0]!.toUpperCase() + appWord.slice(1),
    developer, developerUrlKind, developerUrl, expectedSubject: developerUrlKind === 'empty' ? null : developer,
  };
}

/** Index of the app a store URL path names, or null (the caller checks it against appSpec). */
export function appIndexFromPath(host: string, pathAndQuery: string): number | null {
  if (host === PLAY_HOST) {
    const m = /^\/store\/apps\/details\?(?:.*&)?id=[a-z0-9_.]*?[a-z_](\d+)(?:&|$)/i.exec(pathAndQuery);
    return m ? Number(m[1]) : null;
  }
  if (host === APPLE_HOST) {
    const m = /^\/[a-z]{2}\/app\/[^/]+\/id(\d+)(?:\?|$)/.exec(pathAndQuery);
    return m ? Number(m[1]) - APPLE_ID_BASE : null;
  }
  return null;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** The listing page, meta tags in <head> as app-ads.txt 1.0 "App Stores" asks. */
export function storePage(app: AppSpec): string {
  const storeName = app.store === 'google_play' ? 'Google Play' : 'App Store';
  const link = app.developerUrl ? `<a class="dev-site" href="${esc(app.developerUrl)}">Visit website</a>` : '';
  return `<!doctype html>
<html lang="en"><head>
<meta charset="utf-8">
<title>${esc(app.name)} – Apps on ${storeName}</title>
<meta name="appstore:developer_url" content="${esc(app.developerUrl)}">
<meta name="appstore:bundle_id" content="${esc(app.bundleId)}">
<meta name="appstore:store_id" content="${esc(app.storeId)}">
<meta property="og:title" content="${esc(app.name)}">
</head><body>
<h1 itemprop="name">${esc(app.name)}</h1>
<div class="developer">${esc(app.developer)} ${link}</div>
<p>${'A synthetic app listing for adsnap tests. '.repeat(8)}</p>
</body></html>
`;
}

export function storeNotFoundPage(): string {
  return '<!doctype html><html><head><title>Not Found</title></head><body><h1>We\'re sorry, the requested URL was not found on this server.</h1></body></html>\n';
}
