/**
 * The sellers phase, in rounds (src/resolve/intermediaries.ts): round 0 asks for the sellers.json
 * (and the buyers.json, buyers-job.ts) of every ad system named by a kept record; round k for every domain named by an
 * INTERMEDIARY/BOTH entry of a file read before and not asked yet this night, up to round
 * `depth` and at most `maxIntermediaries` intermediary files a night. Each sellers.json is asked
 * once a night however many entries and cycles name it.
 *
 * Resumable like every phase: a round's list is fixed when it starts and saved with the round
 * number and what earlier rounds asked (RunState.sellersRounds) in a checkpoint taken at once;
 * inside a round, `done.sellers` says which items are done, and the domains their files named are
 * in the registry (`Referrals.intermediaries`, left out of a checkpoint while their unit is open).
 * A run killed in any round and resumed fetches what the uninterrupted run would have, once.
 */
import type { LocationTableInfo, SellersLocations } from '../src/resolve/sellers-location.js';
import { sellersLocationOverrides, type CrawlOptions } from './crawl-options.js';
import { planNextRound } from '../src/resolve/intermediaries.js';
import type { CrawlContext } from './context.js';
import { doneCount, noneDone } from './pool.js';
import type { Referrals } from './referral-registry.js';
import type { RunState, SellersRounds } from './run-state.js';
import type { RunStats } from './run-stats.js';
import { crawlSellers } from './sellers-job.js';
import { crawlBuyers } from './buyers-job.js';

export const SELLERS_DEFAULTS = { depth: 5, maxIntermediaries: 20_000 } as const;

type SellersOptions = Pick<CrawlOptions, 'sellers' | 'sellersDepth' | 'maxIntermediaries' | 'sellersLocations'>;

/** What the sellers options add to a run's identity: only what is not the default, so that runs started before they existed keep their id. */
export function sellersIdentity(o: SellersOptions): Record<string, unknown> {
  const locations = sellersLocationOverrides(o);
  return {
    ...(o.sellersDepth !== undefined && o.sellersDepth !== SELLERS_DEFAULTS.depth ? { sellersDepth: o.sellersDepth } : {}),
    ...(o.maxIntermediaries !== undefined && o.maxIntermediaries !== SELLERS_DEFAULTS.maxIntermediaries ? { maxIntermediaries: o.maxIntermediaries } : {}),
    ...(Object.keys(locations).length > 0 ? { sellersLocations: locations } : {}),
  };
}

/**
 * The run manifest's sellers options, and its `sellers_rounds`: files asked per round, and the
 * bound when it cut a round. `sellers_locations` are the run's own entries; `sellers_locations_table`
 * the table they were laid on (the shipped data/sellers-locations.tsv: its sha256 and entry count),
 * so that a night can be reproduced with the same locations.
 */
export function sellersManifest(o: SellersOptions, rounds: SellersRounds | null, table: LocationTableInfo | null = null) {
  const l = rounds?.limitReached ?? null;
  return {
    options: {
      sellers: o.sellers !== false,
      sellers_depth: o.sellersDepth ?? SELLERS_DEFAULTS.depth,
      max_intermediaries: o.maxIntermediaries ?? SELLERS_DEFAULTS.maxIntermediaries,
      sellers_locations: sellersLocationOverrides(o),
      sellers_locations_table: table,
    },
    sellers_rounds: rounds ? { rounds: rounds.files, limit_reached: l === null ? null : { round: l.round, not_fetched: l.notFetched } } : null,
  };
}

/**
 * The rounds a run asks for: one machine all of them (0 to `depth`); a sharded snapshot round 0
 * in its stage 'sellers' and the rest in its stage 'intermediaries' (crawl-plan.ts).
 */
export interface SellersMode {
  from: 0 | 1;
  to: 0 | 'depth';
}

export interface SellersRoundsSetup {
  state: Pick<RunState, 'sellersRounds' | 'sellersList' | 'done'>;
  referrals: Referrals;
  stats: RunStats;
  rounds: SellersMode;
  /** Round 0 of a sharded `sellers` stage: the ad systems this shard owns. */
  owns: (host: string) => boolean;
  /** false: `--no-sellers`, no sellers.json at all. */
  sellers: boolean;
  depth: number;
  maxIntermediaries: number;
  locations: SellersLocations;
  /** Runs the units of one round over `list`, skipping `done.sellers`, with checkpoints; no phase change. */
  runUnits: (list: readonly string[], work: (c: CrawlContext, domain: string) => Promise<void>) => Promise<void>;
  /** A checkpoint in phase 'sellers' of the state as it is now. */
  checkpoint: () => Promise<void>;
}

export async function runSellersRounds(s: SellersRoundsSetup): Promise<void> {
  const { state, referrals, stats } = s;
  const last = !s.sellers || s.rounds.to === 0 ? 0 : s.depth;
  const rounds: SellersRounds = (state.sellersRounds ??= { round: s.rounds.from, fetched: [], files: [], limitReached: null });
  if (state.sellersList === null) {
    if (rounds.round === 0) {
      state.sellersList = s.sellers ? [...referrals.adSystems].sort().filter(s.owns) : [];
    } else {
      // A run that starts at round 1 (stage 'intermediaries'): every shard's round 0 asked for every ad system.
      rounds.fetched = s.sellers ? [...referrals.adSystems].sort() : [];
      state.sellersList = last >= 1 ? plan(s, rounds, new Set(rounds.fetched), 1) : [];
    }
  }
  for (;;) {
    const round = rounds.round;
    const list = state.sellersList!;
    stats.sellersRound = round;
    stats.queued = list.length - doneCount(state.done.sellers, list.length);
    const via = round === 0 ? 'ad_system' : 'intermediary';
    await s.runUnits(list, async (c, domain) => {
      const robots = await crawlSellers(c, referrals, { domain, urls: s.locations.candidatesFor(domain), via });
      // buyers.json 1.0: each ad system named by a record, once a night (not the intermediaries).
      if (round === 0) await crawlBuyers(c, domain, robots);
      stats.queued--;
    });
    rounds.files.push({ round, files: list.length });
    if (round >= last || rounds.limitReached !== null) return;
    const fetched = new Set(rounds.fetched);
    for (const d of list) fetched.add(d);
    const next = plan(s, rounds, fetched, round + 1);
    if (next.length === 0) return;
    // One synchronous step, then the checkpoint: a resumed run starts the next round, never redoes this one.
    rounds.fetched = [...fetched];
    rounds.round = round + 1;
    state.sellersList = next;
    state.done.sellers = noneDone();
    await s.checkpoint();
  }
}

/** The next round's list, within what the night's bound leaves; notes the bound when it cuts. */
function plan(s: SellersRoundsSetup, rounds: SellersRounds, fetched: ReadonlySet<string>, round: number): string[] {
  const asked = rounds.files.filter((f) => f.round >= 1).reduce((n, f) => n + f.files, 0);
  const p = planNextRound(s.referrals.intermediaries, fetched, s.maxIntermediaries - asked);
  if (p.notFetched > 0) rounds.limitReached = { round, notFetched: p.notFetched };
  return p.list;
}
