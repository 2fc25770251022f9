/** Which listed apps are CTV (connected-TV) apps, by their store and store URL: the report's CTV splits. */
import type { StoreName } from '../sources/store-id.js';

/**
 * What each store of store-id.ts (StoreName, every value it produces) says about the screen its
 * apps run on. 'ctv': every listing is a TV app (Roku Channel Store, LG Content Store for webOS
 * TV). 'by_url': Samsung, whose TV apps (samsung.com/<cc>/appstore/app/<id>) and Galaxy Store
 * apps for phones (galaxystore.samsung.com, apps.samsung.com) have different listing URLs, so the
 * store URL tells them apart. 'mixed': one URL shape for TV and other apps, so adsnap cannot tell
 * (Amazon: Fire TV and Appstore apps are both amazon.<tld>/dp/<ASIN>; Apple: tvOS and iOS apps
 * are both apps.apple.com/…/id<N>; Microsoft: Xbox and Windows apps are both Microsoft Store
 * ids): not counted as CTV. A store added to StoreName must be placed here (the type says so).
 */
const STORE_SCREEN: Record<StoreName, 'ctv' | 'by_url' | 'mobile' | 'mixed' | 'unknown'> = {
  roku: 'ctv',
  lg: 'ctv',
  samsung: 'by_url',
  amazon: 'mixed',
  apple: 'mixed',
  microsoft: 'mixed',
  google_play: 'mobile',
  huawei: 'mobile',
  xiaomi: 'mobile',
  other: 'unknown',
};
/** Stores all of whose apps are CTV apps (Samsung's TV apps are told apart by URL: ctvAppSql). */
export const CTV_STORES = (Object.keys(STORE_SCREEN) as StoreName[]).filter((s) => STORE_SCREEN[s] === 'ctv');
/** The Samsung listings that are TV apps: store-id.ts keys those by samsung.com (the Galaxy Store by galaxystore/apps.samsung.com). */
const SAMSUNG_TV_URL = String.raw`^([a-z][a-z0-9+.-]*:)?(//)?(www\.)?samsung\.com([:/?#]|$)`;
/** SQL: the app of table alias `a` (the apps table) is a CTV app. */
export function ctvAppSql(a: string): string {
  const byUrl = (Object.keys(STORE_SCREEN) as StoreName[]).filter((s) => STORE_SCREEN[s] === 'by_url');
  return `(${a}.store IN (${CTV_STORES.map((s) => `'${s}'`).join(', ')}) OR (${a}.store IN (${byUrl.map((s) => `'${s}'`).join(', ')}) AND regexp_matches(lower(trim(${a}.store_url)), '${SAMSUNG_TV_URL}')))`;
}
export const CTV_ABOUT =
  "CTV apps: Roku and LG (webOS TV) listings, and Samsung listings at samsung.com/<cc>/appstore/app/ (Samsung's TV store; galaxystore.samsung.com is the Galaxy Store for phones). Amazon, Apple and Microsoft listings are not counted as CTV: their URLs are the same for Fire TV, tvOS and Xbox apps as for the others, so adsnap cannot tell.";
