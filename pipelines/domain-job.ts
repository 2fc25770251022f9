import type { TargetInput } from '../src/sources/domain-list.js';
import { crawlAdsFile } from './ads-file-job.js';
import type { CrawlContext } from './context.js';
import type { Referrals } from './referral-registry.js';
import { previousOf, willRequest } from './obtain-file.js';
import { crawlRobotsFile, robotsFor } from './robots-job.js';
import { crawlAiSignals } from './ai-signals-job.js';

/**
 * One root domain (ads.txt 1.1 §5.5: crawl the PSL+1 of each listed site): its robots.txt, its
 * ads.txt, then the subdomains its ads.txt declares (followed at once: they belong to this root,
 * which keeps a domain's hops inside one shard). Partners are queued for the partner phase.
 */
export async function crawlDomain(ctx: CrawlContext, target: TargetInput, referrals: Referrals): Promise<void> {
  const root = target.target;
  ctx.out.emit('targets', {
    target: root,
    target_kind: 'domain',
    rank: target.rank,
    source: target.source,
    input_line: target.inputLine,
    input_text: target.inputText,
  });
  // A next-night run revalidates robots.txt (24 h) while the ads.txt is usually still fresh
  // (7 days): then robots.txt is the last request to this host, and its connection need not idle.
  const adsPrevious = await previousOf(ctx, root, 'ads.txt');
  const aiSignals = ctx.options.aiSignals;
  const { policy: robots, licenses } = await crawlRobotsFile(ctx, root, 'root', true, !aiSignals && !willRequest(ctx, adsPrevious, 'ads.txt'));
  // --ai-signals: the consent files go between robots.txt and ads.txt, on the same connection.
  if (aiSignals) await crawlAiSignals(ctx, root, robots, licenses);
  const res = await crawlAdsFile(ctx, { subject: root, fileKind: 'ads.txt', via: 'root', role: 'root', root, robots, previous: adsPrevious }, referrals);
  for (const hop of res.hops) {
    if (hop.outcome !== 'followed') continue;
    if (hop.kind === 'inventorypartnerdomain') {
      referrals.addPartner(hop.toSubject, ctx.out);
    } else if (hop.kind === 'subdomain' && referrals.claimSubject(hop.toSubject, ctx.out)) {
      const subRobots = await robotsFor(ctx, referrals, hop.toSubject, 'subdomain');
      const sub = await crawlAdsFile(ctx, { subject: hop.toSubject, fileKind: 'ads.txt', via: 'subdomain', role: 'subdomain', root, robots: subRobots }, referrals);
      // A subdomain's file speaks for its own inventory: its partners are one hop from it.
      for (const h of sub.hops) if (h.outcome === 'followed' && h.kind === 'inventorypartnerdomain') referrals.addPartner(h.toSubject, ctx.out);
    }
  }
  ctx.stats.targetsDone++;
}
