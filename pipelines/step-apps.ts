/**
 * The listed apps: each app this machine owns, its store listing read. Given no `handOn` (an
 * unsharded run), the app is followed to its developer's app-ads.txt at once; given the pending
 * apps of a sharded run, an app whose listing names a developer host is handed on (pending-apps.ts)
 * to the shard owning that host, which follows it in a later step (step-store-referrals.ts).
 */
import { readAppList, type AppListStats } from '../src/sources/apps.js';
import { AppRegistry, crawlApp, emitAppTarget, finishApp, readListing } from './app-job.js';
import { EmptyListError, type CrawlOptions } from './crawl-options.js';
import type { UnitPool } from './context.js';
import type { PendingApps } from './pending-apps.js';
import type { Referrals } from './referral-registry.js';
import { filter } from '../src/util/async-filter.js';

/** What the listed-apps step reads and writes of the run. */
export interface AppsSlice {
  /** The app list to read, or null: no app list. */
  input: string | null;
  options: Pick<CrawlOptions, 'apps' | 'limit' | 'zipEntry' | 'allowEmpty'>;
  referrals: Referrals;
  registry: AppRegistry;
  /** Where apps are handed on, with its length at the last checkpoint; null: follow each app here. */
  handOn: { pending: PendingApps; bytes: number } | null;
  ownsApp: (appKey: string) => boolean;
  pool: UnitPool;
  /** What the list reader counted, for the manifest. */
  setList: (stats: AppListStats) => void;
}

export async function crawlApps(s: AppsSlice): Promise<void> {
  const { options, referrals, registry } = s;
  if (s.input === null) return;
  const src = readAppList(s.input, { limit: options.limit, zipEntry: options.zipEntry });
  const appList = src.stats;
  s.setList(appList);
  const pending = s.handOn?.pending ?? null;
  if (s.handOn) await s.handOn.pending.open(s.handOn.bytes);
  await s.pool(filter(src.apps, (a) => s.ownsApp(a.appKey)), async (c, app) => {
    if (!pending) return crawlApp(c, app, referrals, registry);
    // Handed on: read the listing here; the shard that owns the developer host follows it.
    emitAppTarget(c, app);
    const listing = await readListing(c, app, referrals, registry);
    if (listing.kind === 'final') return finishApp(c, app, listing, referrals, registry);
    return () => pending.add(app, listing);
  });
  if (appList.accepted === 0 && !options.allowEmpty) throw new EmptyListError(`the app list ${options.apps} has no accepted entry (${appList.lines} lines); nothing was committed (--allow-empty commits an empty snapshot)`);
}
