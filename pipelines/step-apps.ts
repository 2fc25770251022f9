/**
 * Stage 'targets', the listed apps: each app this machine owns, its store listing read. Not
 * sharded, the app is followed to its developer's app-ads.txt at once; sharded, an app whose
 * listing names a developer host is handed on (pending-apps.ts) to the shard owning that host,
 * which follows it in stage 'referrals' (step-store-referrals.ts).
 */
import { readAppList } from '../src/sources/apps.js';
import { crawlApp, emitAppTarget, finishApp, readListing } from './app-job.js';
import { EmptyListError } from './crawl-options.js';
import type { CrawlRun } from './crawl-run.js';
import { filter } from '../src/util/async-filter.js';

export async function crawlApps(run: CrawlRun): Promise<void> {
  const { options, referrals, appRegistry, pending } = run;
  const input = run.setup.inputs.apps;
  if (input === null) return;
  run.stats.phase = 'apps';
  const src = readAppList(input, { limit: options.limit, zipEntry: options.zipEntry });
  const appList = (run.appList = src.stats);
  if (pending) {
    appRegistry.recordStoreRobots = false;
    await pending.open(run.state.pendingAppsBytes);
  }
  await run.pool('apps', filter(src.apps, (a) => run.ownsApp(a.appKey)), async (c, app) => {
    if (!pending) return crawlApp(c, app, referrals, appRegistry);
    // Sharded: read the listing here; the shard that owns the developer host follows it (stage 'referrals').
    emitAppTarget(c, app);
    const listing = await readListing(c, app, referrals, appRegistry);
    if (listing.kind === 'final') return finishApp(c, app, listing, referrals, appRegistry);
    return () => pending.add(app, listing);
  });
  if (appList.accepted === 0 && !options.allowEmpty) throw new EmptyListError(`the app list ${options.apps} has no accepted entry (${appList.lines} lines); nothing was committed (--allow-empty commits an empty snapshot)`);
}
