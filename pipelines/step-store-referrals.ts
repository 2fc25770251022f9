/**
 * The apps' half of a sharded snapshot's stage 'referrals': the store hosts' robots.txt, recorded
 * once by the shard owning each host; then every shard's pending apps whose developer host this
 * shard owns, followed to their app-ads.txt (the listing was read by the listed-apps step).
 */
import { developerHost, finishApp, type AppRegistry } from './app-job.js';
import type { CrawlContext, UnitPool } from './context.js';
import type { PendingApps } from './pending-apps.js';
import type { Referrals } from './referral-registry.js';
import { robotsFor } from './robots-job.js';
import { filter } from '../src/util/async-filter.js';

/** What the handed-on-apps step reads and writes of the run. */
export interface HandedOnSlice {
  /** The run's context, for the store hosts' robots.txt (outside any unit). */
  ctx: CrawlContext;
  referrals: Referrals;
  registry: AppRegistry;
  /** Every shard's handed-on apps; null in a run that hands none on. */
  pending: PendingApps | null;
  owns: (host: string) => boolean;
  pool: UnitPool;
}

export async function followPendingApps(s: HandedOnSlice): Promise<void> {
  const { referrals, registry, pending } = s;
  if (pending === null) return;
  for (const host of [...referrals.storeHosts].sort()) if (s.owns(host)) await robotsFor(s.ctx, referrals, host, 'store');
  await s.pool(filter(pending.readAll(), (p) => s.owns(developerHost(p.listing) ?? '')), (c, p) => finishApp(c, p.app, p.listing, referrals, registry));
}
