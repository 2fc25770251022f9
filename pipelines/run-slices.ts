/**
 * The slice of the run each step of the plan is given (crawl-plan.ts): what it reads and writes,
 * and nothing else. Built here, by the runner's side, from the one `CrawlRun`; the steps never see
 * the run itself, so what a step can touch is what its slice type says.
 */
import type { CrawlRun } from './crawl-run.js';
import type { CommitSlice } from './step-commit.js';
import type { AppsSlice } from './step-apps.js';
import type { DomainsSlice } from './step-domains.js';
import type { PartnersSlice } from './step-partners.js';
import { SELLERS_WIDTH, type SellersSlice } from './step-sellers.js';
import type { HandedOnSlice } from './step-store-referrals.js';
import { SELLERS_DEFAULTS } from './sellers-rounds.js';
import type { RunManifest, RunState } from './run-state.js';

export function domainsSlice(run: CrawlRun): DomainsSlice {
  return {
    input: run.setup.inputs.domains,
    options: run.options,
    shardCount: run.setup.shard?.count ?? null,
    referrals: run.referrals,
    stats: run.stats,
    owns: (host) => run.owns(host),
    pool: run.poolFor('domains'),
    setList: (list) => (run.list = list),
    // One machine, no app list: an app's developer host claims its robots.txt before any partner does today, in the apps phase.
    earlyPartnersState: run.setup.stage === 'all' && run.setup.inputs.apps === null ? run.state : null,
  };
}

export function appsSlice(run: CrawlRun): AppsSlice {
  return {
    input: run.setup.inputs.apps,
    options: run.options,
    referrals: run.referrals,
    registry: run.appRegistry,
    handOn: run.pending ? { pending: run.pending, bytes: run.state.pendingAppsBytes } : null,
    ownsApp: (appKey) => run.ownsApp(appKey),
    pool: run.poolFor('apps'),
    setList: (list) => (run.appList = list),
  };
}

export function handedOnSlice(run: CrawlRun): HandedOnSlice {
  return { ctx: run.ctx, referrals: run.referrals, registry: run.appRegistry, pending: run.pending, owns: (host) => run.owns(host), pool: run.poolFor('apps') };
}

export function partnersSlice(run: CrawlRun): PartnersSlice {
  return { state: run.state, referrals: run.referrals, stats: run.stats, owns: (host) => run.owns(host), pool: run.poolFor('partners') };
}

export function sellersSlice(run: CrawlRun): SellersSlice {
  const { options } = run;
  const width = Math.max(1, Math.min(run.concurrency, SELLERS_WIDTH));
  return {
    state: run.state,
    referrals: run.referrals,
    stats: run.stats,
    owns: (host) => run.owns(host),
    sellers: options.sellers !== false,
    depth: options.sellersDepth ?? SELLERS_DEFAULTS.depth,
    maxIntermediaries: options.maxIntermediaries ?? SELLERS_DEFAULTS.maxIntermediaries,
    locations: run.sellersLocations,
    runUnits: (list, work) => run.units('sellers', list, width, work),
    checkpoint: () => run.checkpoint('sellers'),
    finish: () => run.finish('sellers'),
  };
}

export function commitSlice(run: CrawlRun, manifest: RunManifest, shardReport: RunState['shardReport']): CommitSlice {
  const { setup } = run;
  return {
    options: run.options,
    state: run.state,
    stats: run.stats,
    journal: setup.journal,
    lock: setup.lock,
    writer: run.writer,
    pending: run.pending,
    manifest,
    shardReport,
    closeInputs: () => run.closeInputs(),
    resumed: run.resumed,
  };
}
