/**
 * The crawl as a plan: its steps as data, in order, and one runner that walks them. Which steps
 * an attempt runs is decided here and only here, from two things: the stage of a sharded
 * snapshot (`--stage`; an unsharded crawl is stage 'all' and runs every step), and how far a
 * resumed attempt's saved state had got (a step whose phase is finished is not run again).
 *
 *   step              phase     stages                          module
 *   listed sites      domains   all, targets                    step-domains.ts
 *   listed apps       apps      all, targets                    step-apps.ts
 *   handed-on apps    apps      referrals                       step-store-referrals.ts
 *   partners          partners  all, referrals                  step-partners.ts
 *   sellers.json      sellers   all, sellers, intermediaries    step-sellers.ts
 *   then the commit (step-commit.ts), in every stage.
 */
import { emitCatalogue } from './robots-agents.js';
import { previousStage, readShardReports, type Stage } from './shard-exchange.js';
import { EmptyListError, type CrawlResult } from './crawl-options.js';
import { throwIfAborted, type CrawlRun } from './crawl-run.js';
import { nextPhase, PHASES, type Phase, type WorkPhase } from './run-journal.js';
import { crawlApps } from './step-apps.js';
import { commitCrawl } from './step-commit.js';
import { crawlDomains } from './step-domains.js';
import { crawlPartners } from './step-partners.js';
import { crawlSellers } from './step-sellers.js';
import { followPendingApps } from './step-store-referrals.js';

export interface Step {
  /** What the step is, for people (the table above, tests). */
  name: string;
  /** The work phase whose done set the step's units fill; the step is over once the saved state is past it. */
  phase: WorkPhase;
  /** The stages that run the step ('all': an unsharded crawl). */
  stages: readonly (Stage | 'all')[];
  run: (run: CrawlRun) => Promise<void>;
  /** What the step does when it is not run (stage or resume): the domain list is still read, for its roots. */
  skipped?: (run: CrawlRun) => Promise<void>;
}

export const PLAN: readonly Step[] = [
  { name: 'listed sites', phase: 'domains', stages: ['all', 'targets'], run: (r) => crawlDomains(r, true), skipped: (r) => crawlDomains(r, false) },
  { name: 'listed apps', phase: 'apps', stages: ['all', 'targets'], run: crawlApps },
  { name: 'handed-on apps', phase: 'apps', stages: ['referrals'], run: followPendingApps },
  { name: 'partners', phase: 'partners', stages: ['all', 'referrals'], run: crawlPartners },
  { name: 'sellers.json', phase: 'sellers', stages: ['all', 'sellers', 'intermediaries'], run: crawlSellers },
];

/**
 * Whether an attempt of `stage` whose saved state is at `phase` runs `step`: the stage's step,
 * not finished by an earlier attempt.
 */
export function runsStep(step: Step, stage: Stage | 'all', phase: Phase): boolean {
  return step.stages.includes(stage) && PHASES.indexOf(phase) < PHASES.indexOf(nextPhase(step.phase));
}

/** Walks the plan, then commits. On failure the staged parts and the last checkpoint stay, so the same command resumes. */
export async function runPlan(run: CrawlRun): Promise<CrawlResult> {
  try {
    await begin(run);
    for (const step of PLAN) {
      if (runsStep(step, run.setup.stage, run.state.phase)) await step.run(run);
      else await step.skipped?.(run);
      throwIfAborted(run.ctx.signal);
    }
    return await commitCrawl(run);
  } catch (err) {
    // Temporary files go; staged parts and the last checkpoint stay.
    await run.writer.abort({ keepCommitted: true });
    // An empty list crawled nothing: no checkpoint is kept that would tie the run to that list.
    if (err instanceof EmptyListError) await run.setup.journal.remove();
    throw err;
  } finally {
    await run.closeInputs();
  }
}

/** Before the first step: the earlier snapshot, the night's catalogue, and what the shards' previous stage found. */
async function begin(run: CrawlRun): Promise<void> {
  const { stage, shard } = run.setup;
  await run.openIncremental();
  // The night's catalogue, once per snapshot: by the whole crawl, or by shard 0's first stage.
  // A fresh attempt only: a resumed one has these rows in its first checkpoint's parts.
  if (!run.resumed && (stage === 'all' || (stage === 'targets' && shard?.index === 0))) {
    emitCatalogue(run.root, run.catalogue);
    await run.root.settle();
  }
  // Learn what every shard found in the previous stage.
  const before = stage === 'all' ? null : previousStage(stage);
  if (shard === null || before === null) return;
  for (const r of await readShardReports(run.options.outDir, run.setup.snapshotDate, shard, before)) run.referrals.merge(r);
}
