/**
 * The sellers.json phase: every ad system named by a record kept in this snapshot, then the
 * intermediaries their files name, round by round; each file once a night (sellers-rounds.ts).
 * Which rounds a stage runs is the plan's (crawl-plan.ts): this step runs those it is given.
 */
import { runSellersRounds, type SellersMode, type SellersRoundsSetup } from './sellers-rounds.js';

export type { SellersMode } from './sellers-rounds.js';

/**
 * sellers.json files read at once, at most, whatever the run's concurrency (docs/guide/operating.md):
 * one file per ad system or intermediary, few next to the sites, and some very large
 * (docs/performance.md, "The sellers phase").
 */
export const SELLERS_WIDTH = 16;

/** What the sellers step reads and writes of the run: the rounds' setup, and how to end the phase. */
export type SellersSlice = Omit<SellersRoundsSetup, 'rounds'> & {
  /** Marks the phase done, with a checkpoint in the phase after it. */
  finish: () => Promise<void>;
};

export async function crawlSellers(s: SellersSlice, rounds: SellersMode): Promise<void> {
  await runSellersRounds({ ...s, rounds });
  await s.finish();
}
