/**
 * The partner phase (ads.txt 1.1 §4.6, §5.7): each inventory partner's ads.txt once per
 * snapshot, one hop. A partner that is itself a listed root, or a subdomain already fetched, is
 * not fetched again. Its list is fixed when the phase starts, so a resumed run goes on in it.
 */
import { rootDomain } from '../src/util/domain.js';
import { crawlAdsFile } from './ads-file-job.js';
import type { UnitPool } from './context.js';
import { doneCount } from './pool.js';
import type { Referrals } from './referral-registry.js';
import type { RunState } from './run-state.js';
import type { RunStats } from './run-stats.js';
import { robotsFor } from './robots-job.js';

/** What the partners step reads and writes of the run: of the saved state, its list and done set. */
export interface PartnersSlice {
  state: Pick<RunState, 'partnerList' | 'done'>;
  referrals: Referrals;
  stats: RunStats;
  owns: (host: string) => boolean;
  pool: UnitPool;
}

export async function crawlPartners(s: PartnersSlice): Promise<void> {
  const { referrals, stats, state } = s;
  const list = (state.partnerList ??= [...referrals.partners].sort().filter((p) => s.owns(p) && !referrals.isClaimed(p)));
  stats.queued = list.length - doneCount(state.done.partners, list.length);
  await s.pool(list, async (c, partner) => {
    if (referrals.claimSubject(partner, c.out)) {
      const robots = await robotsFor(c, referrals, partner, 'inventorypartnerdomain');
      await crawlAdsFile(c, { subject: partner, fileKind: 'ads.txt', via: 'inventorypartnerdomain', role: 'inventorypartnerdomain', root: rootDomain(partner) ?? partner, robots }, referrals);
    }
    stats.partnersDone++;
    stats.queued--;
  });
}
