/**
 * The partner phase (ads.txt 1.1 §4.6, §5.7): each inventory partner's ads.txt once per
 * snapshot, one hop. A partner that is itself a listed root, or a subdomain already fetched, is
 * not fetched again. Its list is fixed when the phase starts, so a resumed run goes on in it.
 *
 * In a run of one machine with no app list, the partners known when the listed sites' list runs
 * out are crawled by the listed-sites step itself, beside its last sites (earlyPartners): the
 * partner phase then starts with them done, and crawls the partners found after them.
 */
import { isWithin, rootDomain } from '../src/util/domain.js';
import { crawlAdsFile } from './ads-file-job.js';
import type { CrawlContext, UnitPool } from './context.js';
import { doneCount } from './pool.js';
import type { Referrals } from './referral-registry.js';
import type { RunState } from './run-state.js';
import type { RunStats } from './run-stats.js';
import { robotsFor } from './robots-job.js';

/** What the partners step reads and writes of the run: of the saved state, its list and done set. */
export interface PartnersSlice {
  state: Pick<RunState, 'partnerList' | 'partnersEarly' | 'done'>;
  referrals: Referrals;
  stats: RunStats;
  owns: (host: string) => boolean;
  pool: UnitPool;
}

export async function crawlPartners(s: PartnersSlice): Promise<void> {
  const { stats, state } = s;
  if (state.partnersEarly) {
    // The listed-sites step crawled these (its pool finished them all): the rest go after them.
    const early = state.partnerList ?? [];
    state.partnerList = [...early, ...unclaimedPartners(s, new Set(early))];
    state.done.partners = { prefix: early.length, extra: [] };
    state.partnersEarly = false;
  }
  const list = (state.partnerList ??= unclaimedPartners(s, new Set()));
  stats.queued = list.length - doneCount(state.done.partners, list.length);
  await s.pool(list, async (c, partner) => {
    await crawlPartner(c, s.referrals, partner);
    stats.queued--;
  });
}

/** The partners this machine crawls that nothing has claimed (and `taken` does not hold), sorted. */
function unclaimedPartners(s: Pick<PartnersSlice, 'referrals' | 'owns'>, taken: ReadonlySet<string>): string[] {
  return [...s.referrals.partners].sort().filter((p) => s.owns(p) && !s.referrals.isClaimed(p) && !taken.has(p));
}

/** One partner: its robots.txt and ads.txt, unless its host was claimed meanwhile. */
export async function crawlPartner(c: CrawlContext, referrals: Referrals, partner: string): Promise<void> {
  if (referrals.claimSubject(partner, c.out)) {
    const robots = await robotsFor(c, referrals, partner, 'inventorypartnerdomain');
    await crawlAdsFile(c, { subject: partner, fileKind: 'ads.txt', via: 'inventorypartnerdomain', role: 'inventorypartnerdomain', root: rootDomain(partner) ?? partner, robots }, referrals);
  }
  c.stats.partnersDone++;
}

/**
 * The partners the listed-sites step may crawl once its list has run out, fixed in the saved
 * state (`partnersEarly`) the first time, so a resumed run's step yields the same ones at the
 * same places. Left for the partner phase: any partner inside a listed site still in flight
 * (`inFlight`, its roots), whose ads.txt may yet declare it a subdomain (§4.5: a subdomain is
 * claimed by its root before any partner is), so each host's first claim is as without this.
 */
export function earlyPartners(s: Pick<PartnersSlice, 'state' | 'referrals' | 'owns'>, inFlight: ReadonlySet<string>): string[] {
  const { state } = s;
  if (state.partnersEarly) return state.partnerList ?? [];
  const roots = [...inFlight];
  const list = unclaimedPartners(s, new Set()).filter((p) => !roots.some((r) => isWithin(p, r)));
  state.partnerList = list;
  state.partnersEarly = true;
  return list;
}
