import { performance } from 'node:perf_hooks';
import { setMaxListeners } from 'node:events';
import path from 'node:path';
import { DEFAULT_VERDICT_AGENTS, DEFAULT_VERDICT_PATHS } from '../src/parse/robots/index.js';
import { Fetcher, resolveFetchConfig, type FetchConfig } from '../src/fetch/index.js';
import { openSnapshotWriter, type SnapshotWriter } from '../src/sink/index.js';
import type { RunLock } from '../src/store/run-lock.js';
import type { AppListStats } from '../src/sources/apps.js';
import type { ListStats } from '../src/sources/domain-list.js';
import { BODIES_DIR, BodyStore } from '../src/store/body-store.js';
import { findPreviousSnapshot, PreviousSnapshot } from '../src/store/previous-snapshot.js';
import { owns, ownsApp, type Shard } from '../src/util/shard.js';
import { productToken } from '../src/util/product-token.js';
import { SellersLocations } from '../src/resolve/sellers-location.js';
import { loadAgentsCatalogue, type AgentsCatalogue } from '../src/resolve/agents-catalogue.js';
import { AppRegistry } from './app-job.js';
import { PendingApps } from './pending-apps.js';
import type { Stage } from './shard-exchange.js';
import { RowEmitter, type CrawlContext, type Incremental, type UnitPool, type UnitWork } from './context.js';
import { PreviousLookup } from './previous-lookup.js';
import { allDone, noneDone, runPool, type DoneSet } from './pool.js';
import { Referrals } from './referral-registry.js';
import type { RunJournal } from './run-journal.js';
import { RUN_STATE_VERSION, type RunState } from './run-state.js';
import { isWorkPhase, nextPhase, WORK_PHASES, type Phase, type WorkPhase } from './phases.js';
import { clockFrom, type Clock } from '../src/util/clock.js';
import type { RunStats } from './run-stats.js';
import { DEFAULT_CHECKPOINT_SECONDS, DEFAULT_CONCURRENCY, DEFAULT_ROW_GROUP_ROWS, sellersLocationOverrides, type CrawlOptions } from './crawl-options.js';
import type { RunInputs } from './run-inputs.js';

/** What `crawl()` decided before the crawl starts: the run, its place in a sharded snapshot, its lock and inputs. */
export interface RunSetup {
  runId: string;
  snapshotDate: string;
  shard: Shard | null;
  stage: Stage | 'all';
  stats: RunStats;
  journal: RunJournal;
  lock: RunLock;
  inputs: RunInputs;
}

/**
 * One attempt of a crawl, open: the fetcher, the writer, the registries and the resumable state.
 * Only the runner (crawl-plan.ts) holds it: each step of the plan gets the slice it needs
 * (run-slices.ts), with the units of its phase to run with checkpoints (`poolFor`).
 */
export class CrawlRun {
  /** What the list readers counted, for the manifest (set by the steps that read the lists). */
  list: ListStats | null = null;
  appList: AppListStats | null = null;

  private constructor(
    readonly options: CrawlOptions,
    readonly setup: RunSetup,
    readonly ctx: CrawlContext,
    readonly root: RowEmitter,
    readonly writer: SnapshotWriter,
    readonly fetchConfig: FetchConfig,
    readonly state: RunState,
    readonly referrals: Referrals,
    readonly appRegistry: AppRegistry,
    /** Sharded runs only: apps handed from the shard that read the listing to the developer host's owner. */
    readonly pending: PendingApps | null,
    readonly catalogue: AgentsCatalogue,
    readonly sellersLocations: SellersLocations,
    readonly concurrency: number,
  ) {}

  static async open(options: CrawlOptions, setup: RunSetup): Promise<CrawlRun> {
    const { runId, snapshotDate, shard, stats, journal } = setup;
    // The run's clock: `--now` shifts every time the run records; the fetcher's own waits stay real.
    const clock = clockFrom(options.now, { now: options.fetch?.now ?? Date.now });
    const signal = options.signal ?? new AbortController().signal;
    // Every request in flight listens on the run's signal: hundreds at once is expected.
    setMaxListeners(0, signal);
    const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
    const fetchConfig = resolveFetchConfig({ ...options.fetch, concurrency: options.fetch?.concurrency ?? concurrency, recordNow: () => clock.now() });
    const saved = journal.previous;
    const catalogue = options.agentsCatalogue ?? (await loadAgentsCatalogue());
    // Where ad systems publish sellers.json: the shipped table under the run's entries, read once (its hash goes in the manifest).
    const sellersLocations = await SellersLocations.load(sellersLocationOverrides(options));
    const writer = await openSnapshotWriter({
      outDir: options.outDir,
      snapshotDate,
      runId,
      rowGroupRows: options.rowGroupRows ?? DEFAULT_ROW_GROUP_ROWS,
      stagingDir: journal.dir,
      adopt: saved?.staged ?? [],
      attempt: journal.attempt,
    });
    const root = new RowEmitter(writer);
    const ctx = crawlContext(options, new Fetcher(fetchConfig, stats.fetch), root, stats, signal, catalogue, clock);
    const referrals = new Referrals();
    // A sharded run's store robots.txt is recorded by the shard owning the store host (stage 'referrals').
    const appRegistry = new AppRegistry(shard === null);
    const state = saved ?? freshState(setup);
    state.attempt = journal.attempt;
    if (saved?.referrals) referrals.restore(saved.referrals);
    if (saved?.apps) appRegistry.restore(saved.apps);
    if (saved?.stats) stats.restore(saved.stats);
    const pending = shard ? new PendingApps(options.outDir, snapshotDate, shard) : null;
    return new CrawlRun(options, setup, ctx, root, writer, fetchConfig, state, referrals, appRegistry, pending, catalogue, sellersLocations, concurrency);
  }

  get stats(): RunStats {
    return this.setup.stats;
  }

  get resumed(): boolean {
    return this.setup.journal.previous !== null;
  }

  /** Whether this machine crawls `host` (every host when the run is not sharded). */
  owns(host: string): boolean {
    return owns(this.setup.shard, host);
  }

  ownsApp(appKey: string): boolean {
    return ownsApp(this.setup.shard, appKey);
  }

  /** Opens the earlier snapshot this run builds on, if there is one (docs/guide/nightly.md#incremental-snapshots). */
  async openIncremental(): Promise<void> {
    this.ctx.incremental = await openIncremental(this.options, this.setup.snapshotDate, this.ctx.clock);
  }

  /** The units of `phase`, for its step: `units` at the run's width, then the phase is done. */
  poolFor(phase: WorkPhase): UnitPool {
    return (items, work) => this.pool(phase, items, work);
  }

  /**
   * Takes a checkpoint as of this instant: everything it records (done items, registries, the
   * writer's part boundary, the pending-apps length) is captured synchronously, before the first
   * await, so work in flight can go on meanwhile and none of it is in what is recorded.
   */
  checkpoint(phase: Phase, done?: DoneSet): Promise<void> {
    const { state, stats } = this;
    const t0 = performance.now();
    state.phase = phase;
    if (done !== undefined && isWorkPhase(phase)) state.done[phase] = done;
    const provisional = this.root.provisional();
    state.referrals = this.referrals.toJSON(provisional);
    state.apps = this.appRegistry.toJSON(provisional);
    state.stats = stats.toJSON();
    const pendingBytes = this.pending?.mark() ?? state.pendingAppsBytes;
    const staged = this.writer.checkpoint();
    const pauseMs = performance.now() - t0;
    return (async () => {
      state.staged = await staged;
      if (this.pending) await this.pending.sync();
      state.pendingAppsBytes = pendingBytes;
      await this.setup.lock.assertHeld();
      await this.setup.journal.save(state);
      stats.countCheckpoint(pauseMs, performance.now() - t0);
    })();
  }

  /**
   * Runs one phase's units over its input, skipping what an earlier attempt finished, with
   * checkpoints; the phase stays where it is (the sellers phase's rounds). Each item is a unit:
   * its rows reach the writer only when it is done (`RowScope`).
   */
  async units<T>(phase: WorkPhase, items: AsyncIterable<T> | Iterable<T>, width: number, work: UnitWork<T>): Promise<void> {
    const signal = this.ctx.signal;
    await runPool(items, width, (item, done) => this.unit(item, done, work), {
      signal,
      skip: this.state.done[phase],
      checkpointEveryMs: (this.options.checkpointSeconds ?? DEFAULT_CHECKPOINT_SECONDS) * 1000,
      onCheckpoint: (d) => this.checkpoint(phase, d),
    });
    throwIfAborted(signal);
  }

  /** `units` at the run's width, then the phase is done: a checkpoint in the phase after it. */
  async pool<T>(phase: WorkPhase, items: AsyncIterable<T> | Iterable<T>, work: UnitWork<T>): Promise<void> {
    await this.units(phase, items, this.concurrency, work);
    await this.finish(phase);
  }

  /** Marks a work phase done and saves a checkpoint in the phase after it. */
  async finish(phase: WorkPhase): Promise<void> {
    this.state.done[phase] = allDone();
    await this.checkpoint(nextPhase(phase));
  }

  private async unit<T>(item: T, done: () => void, work: UnitWork<T>): Promise<void> {
    const unit = this.root.begin();
    let after: void | (() => void);
    try {
      after = await work({ ...this.ctx, out: unit }, item);
    } catch (err) {
      unit.discard();
      throw err;
    }
    // One synchronous step: the unit's rows, its side effects and its "done" go together.
    unit.commit();
    after?.();
    done();
    await this.root.settle();
  }

  /** Nothing is fetched or looked up any more: the connections, the DNS cache and the previous snapshot's index go. */
  async closeInputs(): Promise<void> {
    await this.ctx.fetcher.close();
    this.ctx.incremental?.previous.close();
  }
}

function crawlContext(options: CrawlOptions, fetcher: Fetcher, root: RowEmitter, stats: RunStats, signal: AbortSignal, catalogue: AgentsCatalogue, clock: Clock): CrawlContext {
  return {
    fetcher,
    out: root,
    stats,
    signal,
    bodies: options.keepBodies === false ? null : new BodyStore(path.join(options.outDir, BODIES_DIR)),
    incremental: null,
    clock,
    options: {
      verdictAgents: options.verdictAgents ?? DEFAULT_VERDICT_AGENTS,
      verdictPaths: options.verdictPaths ?? DEFAULT_VERDICT_PATHS,
      agents: catalogue.agents.map((a) => a.token),
      obeyRobots: options.obeyRobots ?? 'store',
      productToken,
      robotsSemantics: options.robotsSemantics ?? 'rfc',
      aiSignals: options.aiSignals ?? false,
    },
  };
}

function freshState(setup: RunSetup): RunState {
  return {
    version: RUN_STATE_VERSION,
    runId: setup.runId,
    attempt: 0,
    phase: WORK_PHASES[0],
    done: { domains: noneDone(), apps: noneDone(), partners: noneDone(), sellers: noneDone() },
    partnerList: null,
    sellersList: null,
    referrals: null,
    apps: null,
    stats: null,
    staged: [],
    pendingAppsBytes: 0,
    inputs: setup.inputs.fingerprints,
    commit: null,
    manifest: null,
    shardReport: null,
  };
}

async function openIncremental(o: CrawlOptions, snapshotDate: string, clock: Clock): Promise<Incremental | null> {
  const choice = o.previous === undefined ? 'auto' : o.previous;
  if (choice === null) return null;
  const root = choice === 'auto' ? o.outDir : choice;
  const date = await findPreviousSnapshot(root, snapshotDate);
  if (date === null) return null;
  const snapshot = await PreviousSnapshot.open(root, date);
  return {
    previous: new PreviousLookup(snapshot, date),
    earlierBodies: new BodyStore(path.join(root, BODIES_DIR)),
    // "Now" for freshness decisions: the run's clock as the run opens (given `--now`, that time exactly).
    now: o.now ?? new Date(clock.now()),
    reuseFresh: o.reuseFresh ?? false,
  };
}

export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('crawl aborted');
}
