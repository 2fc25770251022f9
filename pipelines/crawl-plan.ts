/**
 * The crawl as a plan: its steps as data, in order, and one runner that walks them. Each step
 * declares what it runs in each stage of a sharded snapshot (`--stage`; an unsharded crawl is
 * stage 'all') and the slice of the run it reads and writes; the runner alone holds the run
 * (`CrawlRun`), hands each step its slice, sets the phase the progress line shows, and skips a
 * step whose phase a resumed attempt's saved state has finished. No step looks at the stage: what
 * differs between stages is in the step's `stages` (the sellers step: which rounds) and in
 * `STAGE_ROLES` (what a stage does before and after its steps).
 */
import { emitCatalogue } from './robots-agents.js';
import { previousStage, readShardReports, type Stage } from './shard-exchange.js';
import { EmptyListError, type CrawlResult } from './crawl-options.js';
import { throwIfAborted, type CrawlRun } from './crawl-run.js';
import { isFinished, type Phase, type WorkPhase } from './phases.js';
import { crawlApps } from './step-apps.js';
import { commitCrawl } from './step-commit.js';
import { crawlDomains, readRoots } from './step-domains.js';
import { crawlPartners } from './step-partners.js';
import { crawlSellers, type SellersMode } from './step-sellers.js';
import { followPendingApps } from './step-store-referrals.js';
import { runManifest } from './run-manifest.js';
import { appsSlice, commitSlice, domainsSlice, handedOnSlice, partnersSlice, sellersSlice } from './run-slices.js';

export type StageName = Stage | 'all';

/** One step of the plan; `S` is the slice of the run it is given, `M` what it runs in a stage. */
export interface StepDef<S, M> {
  /** What the step is, for people (tests, the progress line's phase is `phase`). */
  name: string;
  /** The work phase whose done set the step's units fill; the step is over once the saved state is past it. */
  phase: WorkPhase;
  /** What the step runs in each stage; a stage not named runs none of it. */
  stages: Partial<Record<StageName, M>>;
  /** The slice of the run the step reads and writes: all it sees of the run. */
  slice: (run: CrawlRun) => S;
  run: (slice: S, mode: M) => Promise<void>;
  /** What the step does when it is not run (another stage's step, or finished before a resume). */
  skipped?: (slice: S) => Promise<void>;
}

/** A step with its types closed over, as the plan holds it. */
export interface Step {
  name: string;
  phase: WorkPhase;
  stages: readonly StageName[];
  run(run: CrawlRun, stage: StageName): Promise<void>;
  skipped: ((run: CrawlRun) => Promise<void>) | null;
}

function step<S, M>(d: StepDef<S, M>): Step {
  return {
    name: d.name,
    phase: d.phase,
    stages: Object.keys(d.stages) as StageName[],
    run: (run, stage) => d.run(d.slice(run), d.stages[stage]!),
    skipped: d.skipped ? (run) => d.skipped!(d.slice(run)) : null,
  };
}

/** The sellers phase's rounds per stage: all of them in one run; round 0, then the rest, in a sharded snapshot. */
const SELLERS_ROUNDS: Partial<Record<StageName, SellersMode>> = { all: { from: 0, to: 'depth' }, sellers: { from: 0, to: 0 }, intermediaries: { from: 1, to: 'depth' } };

export const PLAN: readonly Step[] = [
  step({ name: 'listed sites', phase: 'domains', stages: { all: true, targets: true }, slice: domainsSlice, run: crawlDomains, skipped: readRoots }),
  step({ name: 'listed apps', phase: 'apps', stages: { all: true, targets: true }, slice: appsSlice, run: crawlApps }),
  step({ name: 'handed-on apps', phase: 'apps', stages: { referrals: true }, slice: handedOnSlice, run: followPendingApps }),
  step({ name: 'partners', phase: 'partners', stages: { all: true, referrals: true }, slice: partnersSlice, run: crawlPartners }),
  step({ name: 'sellers.json', phase: 'sellers', stages: SELLERS_ROUNDS, slice: sellersSlice, run: crawlSellers }),
];

/** What a stage does around its steps: who writes the night's catalogue, whose reports it reads first, whether it reports to the next. */
interface StageRole {
  catalogue: 'run' | 'shard 0' | null;
  learnsFrom: Stage | null;
  tellsNext: boolean;
}

export const STAGE_ROLES: Readonly<Record<StageName, StageRole>> = {
  all: { catalogue: 'run', learnsFrom: null, tellsNext: false },
  targets: { catalogue: 'shard 0', learnsFrom: previousStage('targets'), tellsNext: true },
  referrals: { catalogue: null, learnsFrom: previousStage('referrals'), tellsNext: true },
  sellers: { catalogue: null, learnsFrom: previousStage('sellers'), tellsNext: true },
  // The last stage: nothing comes after it.
  intermediaries: { catalogue: null, learnsFrom: previousStage('intermediaries'), tellsNext: false },
};

/** Whether an attempt of `stage` whose saved state is at `phase` runs `step`: the stage's step, not finished by an earlier attempt. */
export function runsStep(step: Step, stage: StageName, phase: Phase): boolean {
  return step.stages.includes(stage) && !isFinished(step.phase, phase);
}

/** Walks the plan, then commits. On failure the staged parts and the last checkpoint stay, so the same command resumes. */
export async function runPlan(run: CrawlRun, plan: readonly Step[] = PLAN): Promise<CrawlResult> {
  const { stage } = run.setup;
  try {
    await begin(run);
    for (const step of plan) {
      const runs = runsStep(step, stage, run.state.phase);
      if (runs || step.skipped) run.stats.enter(step.phase);
      if (runs) await step.run(run, stage);
      else await step.skipped?.(run);
      throwIfAborted(run.ctx.signal);
    }
    const shardReport = run.setup.shard && STAGE_ROLES[stage].tellsNext && stage !== 'all' ? { stage, report: run.referrals.report() } : null;
    return await commitCrawl(commitSlice(run, runManifest(run), shardReport));
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
  const role = STAGE_ROLES[stage];
  await run.openIncremental();
  // The night's catalogue, once per snapshot: by the whole crawl, or by shard 0's first stage.
  // A fresh attempt only: a resumed one has these rows in its first checkpoint's parts.
  if (!run.resumed && (role.catalogue === 'run' || (role.catalogue === 'shard 0' && shard?.index === 0))) {
    emitCatalogue(run.root, run.catalogue);
    await run.root.settle();
  }
  // Learn what every shard found in the previous stage.
  if (shard === null || role.learnsFrom === null) return;
  for (const r of await readShardReports(run.options.outDir, run.setup.snapshotDate, shard, role.learnsFrom)) run.referrals.merge(r);
}
