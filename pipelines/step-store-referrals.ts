/**
 * Stage 'referrals' of a sharded snapshot, the apps' half: the store hosts' robots.txt, recorded
 * once by the shard owning each host; then every shard's pending apps whose developer host this
 * shard owns, followed to their app-ads.txt (the listing was read in stage 'targets').
 */
import { developerHost, finishApp } from './app-job.js';
import type { CrawlRun } from './crawl-run.js';
import { robotsFor } from './robots-job.js';
import { filter } from '../src/util/async-filter.js';

export async function followPendingApps(run: CrawlRun): Promise<void> {
  const { referrals, appRegistry, pending } = run;
  if (pending === null) return; // only a sharded run hands apps on
  run.stats.phase = 'apps';
  for (const host of [...referrals.storeHosts].sort()) if (run.owns(host)) await robotsFor(run.ctx, referrals, host, 'store');
  await run.pool('apps', filter(pending.readAll(), (p) => run.owns(developerHost(p.listing) ?? '')), (c, p) => finishApp(c, p.app, p.listing, referrals, appRegistry));
}
