import { performance } from 'node:perf_hooks';
import { existsSync } from 'node:fs';
import { rm, rmdir } from 'node:fs/promises';
import { setMaxListeners } from 'node:events';
import path from 'node:path';
import { DEFAULT_VERDICT_AGENTS, DEFAULT_VERDICT_PATHS } from '../src/parse/robots/index.js';
import { fetchKnobsManifest } from '../src/fetch/knobs-manifest.js';
import { Fetcher, networkManifest, resolveFetchConfig } from '../src/fetch/index.js';
import { openSnapshotWriter, sweepTemporaryParts, type SnapshotWriter } from '../src/sink/index.js';
import { fingerprintFile } from '../src/sources/fingerprint.js';
import { resolveRunLockOptions, RunLock, RunLockedError } from '../src/store/run-lock.js';
import { readAppList, type AppListStats } from '../src/sources/apps.js';
import { readDomainList, type ListStats } from '../src/sources/domain-list.js';
import { openLineBatches } from '../src/sources/line-reader.js';
import { BODIES_DIR, BodyStore } from '../src/store/body-store.js';
import { findPreviousSnapshot, PreviousSnapshot } from '../src/store/previous-snapshot.js';
import { rootDomain } from '../src/util/domain.js';
import { fnv1a, owns, type Shard } from '../src/util/shard.js';
import { productToken } from '../src/util/product-token.js';
import { version } from '../src/util/version.js';
import { crawlAdsFile } from './ads-file-job.js';
import { AppRegistry, crawlApp, developerHost, emitAppTarget, finishApp, readListing } from './app-job.js';
import { PendingApps } from './pending-apps.js';
import { previousStage, readShardReports, type Stage } from './shard-exchange.js';
import { RowEmitter, type CrawlContext, type Incremental } from './context.js';
import { PreviousLookup } from './previous-lookup.js';
import { crawlDomain } from './domain-job.js';
import { runPool, type DoneSet } from './pool.js';
import { Referrals } from './referral-registry.js';
import { deriveRunId, RunJournal, type Phase, type RunState, type WorkPhase } from './run-journal.js';
import { robotsFor } from './robots-job.js';
import { RunStats } from './run-stats.js';
import { runSellersRounds, SELLERS_DEFAULTS, sellersIdentity, sellersManifest } from './sellers-rounds.js';
import { SellersLocations } from '../src/resolve/sellers-location.js';
import { DEFAULT_CONCURRENCY, EmptyListError, sellersLocationOverrides, validateCrawlOptions, type CrawlOptions, type CrawlResult } from './crawl-options.js';
import { alreadyComplete, checkSameInputs, readInputs, type RunInputs } from './run-inputs.js';
import { compactAndCommit, finishCommit } from './run-commit.js';
import { checkListsHaveEntries } from './list-check.js';
import { catalogueManifest, loadAgentsCatalogue } from '../src/resolve/agents-catalogue.js';
import { emitCatalogue } from './robots-agents.js';

export type { CrawlOptions, CrawlResult } from './crawl-options.js';
export { CRAWL_LIMITS, EmptyListError, validateCrawlOptions } from './crawl-options.js';
export { RunInputChangedError } from './run-inputs.js';

export async function crawl(options: CrawlOptions): Promise<CrawlResult> {
  validateCrawlOptions(options);
  const snapshotDate = options.snapshotDate ?? new Date().toISOString().slice(0, 10);
  const shard = options.shard ?? null;
  const stage: Stage | 'all' = shard ? (options.stage ?? 'targets') : 'all';
  const runId = options.runId ?? deriveRunId(snapshotDate, runIdentity(options, stage));
  const stats = options.stats ?? new RunStats();
  const manifestFile = path.join(options.outDir, '_runs', `${runId}.json`);
  // Reading only, so far: a list that cannot be read fails here, before anything is created.
  const fileFingerprints = {
    domains: options.domains && options.domains !== '-' ? await fingerprintFile(options.domains) : null,
    apps: options.apps && options.apps !== '-' ? await fingerprintFile(options.apps) : null,
  };
  // Bad input at the edge: a list file with no accepted entry is refused before anything is created.
  await checkListsHaveEntries(options, { domains: fileList(options.domains), apps: fileList(options.apps) });
  const outExisted = existsSync(options.outDir);
  if (existsSync(manifestFile) && !options.restart) {
    const result = await alreadyComplete(options, runId, snapshotDate, manifestFile, stats, fileFingerprints);
    // An attempt killed after its manifest (the run is complete) may have left its staging folder;
    // one still alive is cleaning it up itself, and the run is complete all the same (exit 0).
    if (existsSync(path.join(options.outDir, '_staging', `${runId}.lock`)) || existsSync(path.join(options.outDir, '_staging', runId))) {
      const lock = await RunLock.acquire(path.join(options.outDir, '_staging'), runId, options.lock).catch((err: unknown) => {
        if (err instanceof RunLockedError) return null;
        throw err;
      });
      if (lock) await rm(path.join(options.outDir, '_staging', runId), { recursive: true, force: true }).finally(() => lock.release());
    }
    return result;
  }

  const lock = await RunLock.acquire(path.join(options.outDir, '_staging'), runId, options.lock);
  try {
    if (existsSync(manifestFile) && !options.restart) {
      // Finished by the attempt whose lock this one just took over, after the check above.
      await rm(path.join(options.outDir, '_staging', runId), { recursive: true, force: true });
      return await alreadyComplete(options, runId, snapshotDate, manifestFile, stats, fileFingerprints);
    }
    // We hold the run's lock: temporary files of this run are those of attempts that died.
    await sweepTemporaryParts(options.outDir, runId);
    const journal = await RunJournal.open(options.outDir, runId, { restart: options.restart });
    const inputs = await readInputs(options, journal.dir, fileFingerprints);
    const saved = journal.previous;
    if (saved) checkSameInputs(saved, inputs.fingerprints);
    if (options.domains === '-' || options.apps === '-') await checkStdinList(options, inputs, journal);
    if (saved?.phase === 'compact' || saved?.phase === 'commit') {
      stats.restore(saved.stats);
      stats.phase = 'committing';
      return saved.phase === 'compact' ? await compactAndCommit(options, journal, lock, saved, stats, true) : await finishCommit(options, journal, lock, saved, stats, true);
    }
    return await crawlPhases(options, { runId, snapshotDate, shard, stage, stats, journal, lock, inputs });
  } catch (err) {
    if (err instanceof EmptyListError) {
      // Refused stdin: what this attempt made goes with it (folders that hold anything else stay).
      await lock.release();
      for (const dir of [path.join(options.outDir, '_staging'), ...(outExisted ? [] : [options.outDir])]) await rmdir(dir).catch(() => undefined);
    }
    throw err;
  } finally {
    await lock.release();
  }
}

/** A list given as a path (stdin is checked once copied, under the lock). */
function fileList(input: string | null | undefined): string | null {
  return input && input !== '-' ? input : null;
}

/** A list read from stdin with no accepted entry: its copy and checkpoint go, then EmptyListError. */
async function checkStdinList(options: CrawlOptions, inputs: RunInputs, journal: RunJournal): Promise<void> {
  try {
    await checkListsHaveEntries(options, { domains: options.domains === '-' ? inputs.domains : null, apps: options.apps === '-' ? inputs.apps : null });
  } catch (err) {
    if (err instanceof EmptyListError) await journal.remove();
    throw err;
  }
}

interface RunSetup {
  runId: string;
  snapshotDate: string;
  shard: Shard | null;
  stage: Stage | 'all';
  stats: RunStats;
  journal: RunJournal;
  lock: RunLock;
  inputs: RunInputs;
}

async function crawlPhases(options: CrawlOptions, run: RunSetup): Promise<CrawlResult> {
  const { runId, snapshotDate, shard, stage, stats, journal, lock, inputs } = run;
  const signal = options.signal ?? new AbortController().signal;
  // Every request in flight listens on the run's signal: hundreds at once is expected.
  setMaxListeners(0, signal);
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  // Holds set on hosts and addresses (429, bot walls) are counted for the progress line and the manifest.
  const fetchConfig = resolveFetchConfig({ onBackoff: (scope, _key, _ms, cause) => stats.countBackoff(scope, cause), ...options.fetch, concurrency: options.fetch?.concurrency ?? concurrency });
  const saved = journal.previous;
  const catalogue = options.agentsCatalogue ?? (await loadAgentsCatalogue());
  // Where ad systems publish sellers.json: the shipped table under the run's entries, read once (its hash goes in the manifest).
  const sellersLocations = await SellersLocations.load(sellersLocationOverrides(options));
  const writer: SnapshotWriter = await openSnapshotWriter({
    outDir: options.outDir,
    snapshotDate,
    runId,
    rowGroupRows: options.rowGroupRows ?? Number(process.env.ADSNAP_ROW_GROUP_ROWS ?? 8192),
    stagingDir: journal.dir,
    adopt: saved?.staged ?? [],
    attempt: journal.attempt,
  });
  const fetcher = new Fetcher(fetchConfig);
  const root = new RowEmitter(writer);
  const ctx: CrawlContext = {
    fetcher,
    out: root,
    stats,
    signal,
    bodies: options.keepBodies === false ? null : new BodyStore(path.join(options.outDir, BODIES_DIR)),
    incremental: null,
    clockOffsetMs: options.now ? options.now.getTime() - Date.now() : 0,
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
  const referrals = new Referrals();
  const appRegistry = new AppRegistry();
  const state: RunState = saved ?? {
    version: 2,
    runId,
    attempt: 0,
    phase: 'domains',
    done: { domains: none(), apps: none(), partners: none(), sellers: none() },
    partnerList: null,
    sellersList: null,
    referrals: null,
    apps: null,
    stats: null,
    staged: [],
    pendingAppsBytes: 0,
    inputs: inputs.fingerprints,
    commit: null,
    manifest: null,
    shardReport: null,
  };
  state.attempt = journal.attempt;
  if (saved) {
    referrals.restore(saved.referrals);
    appRegistry.restore(saved.apps);
    stats.restore(saved.stats);
  }
  const pending = shard ? new PendingApps(options.outDir, snapshotDate, shard) : null;
  const order: Phase[] = ['domains', 'apps', 'partners', 'sellers', 'seal', 'compact', 'commit'];
  const reached = (p: Phase) => order.indexOf(state.phase) >= order.indexOf(p);
  /**
   * Takes a checkpoint as of this instant: everything it records (done items, registries, the
   * writer's part boundary, the pending-apps length) is captured synchronously, before the first
   * await, so work in flight can go on meanwhile and none of it is in what is recorded.
   */
  const checkpoint = (phase: Phase, done?: DoneSet): Promise<void> => {
    const t0 = performance.now();
    state.phase = phase;
    if (done !== undefined && isWorkPhase(phase)) state.done[phase] = done;
    const provisional = root.provisional();
    state.referrals = referrals.toJSON(provisional);
    state.apps = appRegistry.toJSON(provisional);
    state.stats = stats.toJSON();
    const pendingBytes = pending?.mark() ?? state.pendingAppsBytes;
    const staged = writer.checkpoint();
    const pauseMs = performance.now() - t0;
    return (async () => {
      state.staged = await staged;
      if (pending) await pending.sync();
      state.pendingAppsBytes = pendingBytes;
      await lock.assertHeld();
      await journal.save(state);
      stats.countCheckpoint(pauseMs, performance.now() - t0);
    })();
  };
  /**
   * Runs one phase over its input, skipping what an earlier attempt finished, with checkpoints.
   * Each item is a unit: its rows reach the writer only when it is done (`RowScope`).
   * `units` leaves the phase where it is (the sellers phase's rounds); `pool` then moves on.
   */
  const units = async <T>(phase: WorkPhase, items: AsyncIterable<T> | Iterable<T>, width: number, work: (c: CrawlContext, item: T) => Promise<void | (() => void)>) => {
    await runPool(
      items,
      width,
      async (item, done) => {
        const unit = root.begin();
        let after: void | (() => void);
        try {
          after = await work({ ...ctx, out: unit }, item);
        } catch (err) {
          unit.discard();
          throw err;
        }
        // One synchronous step: the unit's rows, its side effects and its "done" go together.
        unit.commit();
        after?.();
        done();
        await root.settle();
      },
      {
        signal,
        skip: state.done[phase],
        checkpointEveryMs: (options.checkpointSeconds ?? 300) * 1000,
        onCheckpoint: (done) => checkpoint(phase, done),
      },
    );
    throwIfAborted(signal);
  };
  const pool = async <T>(phase: WorkPhase, items: AsyncIterable<T> | Iterable<T>, width: number, work: (c: CrawlContext, item: T) => Promise<void | (() => void)>) => {
    await units(phase, items, width, work);
    state.done[phase] = { prefix: Number.MAX_SAFE_INTEGER, extra: [] };
    await checkpoint(nextPhase(phase));
  };

  let list: ListStats | null = null;
  let appList: AppListStats | null = null;
  const shardOwns = (host: string) => owns(shard, host);
  try {
    ctx.incremental = await openIncremental(options, snapshotDate);
    // The night's catalogue, once per snapshot: by the whole crawl, or by shard 0's first stage.
    // A fresh attempt only: a resumed one has these rows in its first checkpoint's parts.
    if (!saved && (stage === 'all' || (stage === 'targets' && shard?.index === 0))) {
      emitCatalogue(root, catalogue);
      await root.settle();
    }
    const before = stage === 'all' ? null : previousStage(stage);
    if (before !== null) {
      // Learn what every shard found in the previous stage.
      for (const r of await readShardReports(options.outDir, snapshotDate, shard!, before)) referrals.merge(r);
    }

    if (inputs.domains) {
      stats.phase = 'domains';
      void estimateTotal(inputs.domains, options.limit, shard).then((n) => (stats.targetsTotal = n));
      // Every listed root is known to the registry (also those done before a resume, and those
      // of other shards), so that partners that are listed roots are not fetched twice. The
      // reader de-duplicates the list with that same set: one copy of the roots, not two.
      const src = readDomainList(inputs.domains, { limit: options.limit, zipEntry: options.zipEntry, seen: referrals.roots, sourceName: options.domainsSource ?? (options.domains === '-' ? 'stdin' : undefined) });
      list = src.stats;
      const targets = src.targets;
      if ((stage === 'all' || stage === 'targets') && !reached('apps')) {
        await pool('domains', filter(targets, (t) => shardOwns(t.target)), concurrency, (c, t) => crawlDomain(c, t, referrals));
      } else {
        for await (const _ of targets); // only rebuild the roots
      }
      if (list.accepted === 0 && !options.allowEmpty) throw new EmptyListError(`the domain list ${options.domains} has no accepted entry (${list.lines} lines, ${list.malformed} malformed); nothing was committed (--allow-empty commits an empty snapshot)`);
    }
    throwIfAborted(signal);

    if (inputs.apps && (stage === 'all' || stage === 'targets') && !reached('partners')) {
      stats.phase = 'apps';
      const src = readAppList(inputs.apps, { limit: options.limit, zipEntry: options.zipEntry });
      appList = src.stats;
      if (pending) {
        appRegistry.recordStoreRobots = false;
        await pending.open(state.pendingAppsBytes);
      }
      // Apps are spread by their key (not a host: the developer host is known only after the listing).
      const mine = shard ? filter(src.apps, (a) => fnv1a(a.appKey) % shard.count === shard.index) : src.apps;
      await pool('apps', mine, concurrency, async (c, app) => {
        if (!pending) return crawlApp(c, app, referrals, appRegistry);
        // Sharded: read the listing here; the shard that owns the developer host follows it (stage 'referrals').
        emitAppTarget(c, app);
        const listing = await readListing(c, app, referrals, appRegistry);
        if (listing.kind === 'final') return finishApp(c, app, listing, referrals, appRegistry);
        return () => pending.add(app, listing);
      });
      if (appList.accepted === 0 && !options.allowEmpty) throw new EmptyListError(`the app list ${options.apps} has no accepted entry (${appList.lines} lines); nothing was committed (--allow-empty commits an empty snapshot)`);
    }
    throwIfAborted(signal);

    if (stage === 'referrals' && !reached('partners')) {
      stats.phase = 'apps';
      // Store hosts' robots.txt, recorded once by their owner; then the apps whose developer host is ours.
      for (const host of [...referrals.storeHosts].sort()) if (shardOwns(host)) await robotsFor(ctx, referrals, host, 'store');
      await pool('apps', filter(pending!.readAll(), (p) => shardOwns(developerHost(p.listing) ?? '')), concurrency, (c, p) =>
        finishApp(c, p.app, p.listing, referrals, appRegistry),
      );
    }

    // Partner phase (ads.txt 1.1 §4.6, §5.7): each partner's ads.txt once per snapshot, one hop.
    // A partner that is itself a listed root, or a subdomain already fetched, is not fetched again.
    if ((stage === 'all' || stage === 'referrals') && !reached('sellers')) {
      stats.phase = 'partners';
      state.partnerList ??= [...referrals.partners].sort().filter((p) => shardOwns(p) && !referrals.isClaimed(p));
      stats.queued = state.partnerList.length - doneCount(state.done.partners, state.partnerList.length);
      await pool('partners', state.partnerList, concurrency, async (c, partner) => {
        if (referrals.claimSubject(partner, c.out)) {
          const robots = await robotsFor(c, referrals, partner, 'inventorypartnerdomain');
          await crawlAdsFile(c, { subject: partner, fileKind: 'ads.txt', via: 'inventorypartnerdomain', role: 'inventorypartnerdomain', root: rootDomain(partner) ?? partner, robots }, referrals);
        }
        stats.partnersDone++;
        stats.queued--;
      });
    }
    throwIfAborted(signal);

    // sellers.json phase: every ad system named by a record kept in this snapshot, then the
    // intermediaries their files name, round by round; each file once a night (sellers-rounds.ts).
    if ((stage === 'all' || stage === 'sellers' || stage === 'intermediaries') && !reached('seal')) {
      stats.phase = 'sellers';
      const width = Math.max(1, Math.min(concurrency, 16));
      await runSellersRounds({
        state,
        referrals,
        stats,
        stage,
        owns: shardOwns,
        sellers: options.sellers !== false,
        depth: options.sellersDepth ?? SELLERS_DEFAULTS.depth,
        maxIntermediaries: options.maxIntermediaries ?? SELLERS_DEFAULTS.maxIntermediaries,
        locations: sellersLocations,
        runUnits: (list, work) => units('sellers', list, width, work),
        checkpoint: () => checkpoint('sellers'),
      });
      state.done.sellers = { prefix: Number.MAX_SAFE_INTEGER, extra: [] };
      await checkpoint('seal');
    }
    throwIfAborted(signal);

    // The crawl is over: seal every part and save that state (phase 'compact'), then compact,
    // plan the commit and save the plan before publishing anything.
    stats.phase = 'committing';
    state.staged = await writer.seal();
    if (pending) await pending.close();
    state.stats = stats.toJSON();
    // Every stage but the last tells the next what it found (the sellers stage: the intermediaries named).
    state.shardReport = shard && stage !== 'all' && stage !== 'intermediaries' ? { stage, report: referrals.report() } : null;
    state.manifest = {
      run_id: runId,
      snapshot_date: snapshotDate,
      adsnap_version: version,
      node_version: process.version,
      inputs: { domains: options.domains, apps: options.apps ?? null, limit: options.limit ?? null },
      input_fingerprints: inputs.fingerprints,
      // A list named by provider (--domains tranco:…): what it resolved to (src/sources/named-lists).
      named_list: options.namedList ?? null,
      // Every fetch knob as used, from defaults, --config FILE or flags (src/fetch/knobs-manifest.ts).
      fetch: { ...fetchKnobsManifest(fetchConfig), config_file: options.configFile ?? null },
      options: { concurrency, obey_robots: ctx.options.obeyRobots, robots_semantics: ctx.options.robotsSemantics, user_agent: fetchConfig.userAgent, ...sellersManifest(options, null, sellersLocations.base).options, reuse_fresh: options.reuseFresh ?? false, ai_signals: options.aiSignals ?? false, compact: options.compact !== false, agents_catalogue: catalogueManifest(catalogue), lock: lockManifest(options) },
      // Resolvers asked and every exemption from the address guard (--dns-server, --allow-addresses; src/fetch/network-manifest.ts).
      network: networkManifest(fetchConfig),
      sellers_rounds: sellersManifest(options, state.sellersRounds ?? null).sellers_rounds,
      previous_snapshot: ctx.incremental ? ctx.incremental.previous.snapshotDate : null,
      shard: shard ? { index: shard.index, count: shard.count, stage } : null,
      list,
      app_list: appList,
    };
    state.phase = 'compact';
    state.commit = null;
    await lock.assertHeld();
    await journal.save(state);
    // Nothing is fetched or looked up any more: the connections, the DNS cache and the previous
    // snapshot's index go before the compaction, whose DuckDB sets the process's peak memory.
    await fetcher.close();
    ctx.incremental?.previous.close();
    return await compactAndCommit(options, journal, lock, state, stats, saved !== null);
  } catch (err) {
    // Temporary files go; staged parts and the last checkpoint stay, so the same command resumes.
    await writer.abort({ keepCommitted: true });
    // An empty list crawled nothing: no checkpoint is kept that would tie the run to that list.
    if (err instanceof EmptyListError) await journal.remove();
    throw err;
  } finally {
    await fetcher.close();
    ctx.incremental?.previous.close();
  }
}

/** The run lock's settings as the manifest records them. */
function lockManifest(options: CrawlOptions): { heartbeat_ms: number; stale_ms: number } {
  const { heartbeatMs, staleMs } = resolveRunLockOptions(options.lock);
  return { heartbeat_ms: heartbeatMs, stale_ms: staleMs };
}

function none(): DoneSet {
  return { prefix: 0, extra: [] };
}

function doneCount(d: DoneSet, total: number): number {
  return Math.min(total, d.prefix) + d.extra.filter((i) => i < total).length;
}

async function openIncremental(o: CrawlOptions, snapshotDate: string): Promise<Incremental | null> {
  const choice = o.previous === undefined ? 'auto' : o.previous;
  if (choice === null) return null;
  const root = choice === 'auto' ? o.outDir : choice;
  const date = await findPreviousSnapshot(root, snapshotDate);
  if (date === null) return null;
  const snapshot = await PreviousSnapshot.open(root, date);
  return {
    previous: new PreviousLookup(snapshot, date),
    earlierBodies: new BodyStore(path.join(root, BODIES_DIR)),
    now: o.now ?? new Date(),
    reuseFresh: o.reuseFresh ?? false,
  };
}

/** What makes two invocations "the same run" (and so resumable into one snapshot). */
function runIdentity(o: CrawlOptions, stage: Stage | 'all'): Record<string, unknown> {
  const abs = (p: string | null | undefined) => (p && p !== '-' ? path.resolve(p) : (p ?? null));
  return {
    domains: abs(o.domains),
    apps: abs(o.apps),
    limit: o.limit ?? null,
    zipEntry: o.zipEntry ?? null,
    obeyRobots: o.obeyRobots ?? 'store',
    // Named only when not the default, so that the ids of runs started before the option stay the same.
    ...(o.robotsSemantics === 'google' ? { robotsSemantics: 'google' } : {}),
    ...(o.aiSignals ? { aiSignals: true } : {}),
    sellers: o.sellers !== false,
    ...sellersIdentity(o),
    ...(o.shard ? { shard: `${o.shard.index}/${o.shard.count}`, stage } : {}),
  };
}

function nextPhase(p: WorkPhase): Phase {
  return ({ domains: 'apps', apps: 'partners', partners: 'sellers', sellers: 'seal' } as const)[p];
}

function isWorkPhase(p: Phase): p is WorkPhase {
  return p === 'domains' || p === 'apps' || p === 'partners' || p === 'sellers';
}

async function* filter<T>(items: AsyncIterable<T>, keep: (item: T) => boolean): AsyncGenerator<T> {
  for await (const item of items) if (keep(item)) yield item;
}

/**
 * Roughly how many targets this run will crawl, for the progress display's ETA: the list's
 * non-blank lines (a second, cheap read), capped by --limit, divided among shards. Null when the
 * list cannot be read ahead (the crawl itself reports that error).
 */
async function estimateTotal(input: string, limit: number | undefined, shard: Shard | null): Promise<number | null> {
  try {
    let n = 0;
    for await (const batch of openLineBatches(input)) for (const l of batch) if (l.line.trim() !== '') n++;
    const capped = Math.min(n, limit ?? Infinity);
    return shard ? Math.round(capped / shard.count) : capped;
  } catch {
    return null;
  }
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('crawl aborted');
}
