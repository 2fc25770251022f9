/**
 * The partner phase (ads.txt 1.1 §4.6, §5.7): each inventory partner's ads.txt once per
 * snapshot, one hop. A partner that is itself a listed root, or a subdomain already fetched, is
 * not fetched again. Its list is fixed when the phase starts, so a resumed run goes on in it.
 */
import { rootDomain } from '../src/util/domain.js';
import { crawlAdsFile } from './ads-file-job.js';
import type { CrawlRun } from './crawl-run.js';
import { doneCount } from './pool.js';
import { robotsFor } from './robots-job.js';

export async function crawlPartners(run: CrawlRun): Promise<void> {
  const { referrals, stats, state } = run;
  stats.phase = 'partners';
  const list = (state.partnerList ??= [...referrals.partners].sort().filter((p) => run.owns(p) && !referrals.isClaimed(p)));
  stats.queued = list.length - doneCount(state.done.partners, list.length);
  await run.pool('partners', list, async (c, partner) => {
    if (referrals.claimSubject(partner, c.out)) {
      const robots = await robotsFor(c, referrals, partner, 'inventorypartnerdomain');
      await crawlAdsFile(c, { subject: partner, fileKind: 'ads.txt', via: 'inventorypartnerdomain', role: 'inventorypartnerdomain', root: rootDomain(partner) ?? partner, robots }, referrals);
    }
    stats.partnersDone++;
    stats.queued--;
  });
}
