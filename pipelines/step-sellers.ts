/**
 * The sellers.json phase: every ad system named by a record kept in this snapshot, then the
 * intermediaries their files name, round by round; each file once a night (sellers-rounds.ts).
 * Stage 'sellers' of a sharded snapshot is round 0, stage 'intermediaries' the rounds after it.
 */
import type { CrawlRun } from './crawl-run.js';
import { runSellersRounds, SELLERS_DEFAULTS } from './sellers-rounds.js';

/**
 * sellers.json files read at once, at most, whatever the run's concurrency (docs/guide/operating.md):
 * one file per ad system or intermediary, few next to the sites, and some very large
 * (docs/performance.md, "The sellers phase").
 */
export const SELLERS_WIDTH = 16;

export async function crawlSellers(run: CrawlRun): Promise<void> {
  const { options } = run;
  run.stats.phase = 'sellers';
  const width = Math.max(1, Math.min(run.concurrency, SELLERS_WIDTH));
  await runSellersRounds({
    state: run.state,
    referrals: run.referrals,
    stats: run.stats,
    stage: run.setup.stage,
    owns: (host) => run.owns(host),
    sellers: options.sellers !== false,
    depth: options.sellersDepth ?? SELLERS_DEFAULTS.depth,
    maxIntermediaries: options.maxIntermediaries ?? SELLERS_DEFAULTS.maxIntermediaries,
    locations: run.sellersLocations,
    runUnits: (list, work) => run.units('sellers', list, width, work),
    checkpoint: () => run.checkpoint('sellers'),
  });
  await run.finish('sellers');
}
