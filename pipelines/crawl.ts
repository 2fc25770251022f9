import { existsSync, readFileSync } from 'node:fs';
import { setMaxListeners } from 'node:events';
import path from 'node:path';
import { DEFAULT_VERDICT_AGENTS, DEFAULT_VERDICT_PATHS } from '../src/parse/robots/index.js';
import { Fetcher, resolveFetchConfig, type FetchConfig } from '../src/fetch/index.js';
import { openSnapshotWriter, sweepTemporaryParts, writeRunManifest, type SnapshotWriter } from '../src/sink/index.js';
import { readAppList, type AppListStats } from '../src/sources/apps.js';
import { readDomainList, type ListStats } from '../src/sources/domain-list.js';
import { openLineBatches } from '../src/sources/line-reader.js';
import { BODIES_DIR, BodyStore } from '../src/store/body-store.js';
import { findPreviousSnapshot, PreviousSnapshot } from '../src/store/previous-snapshot.js';
import { rootDomain } from '../src/util/domain.js';
import { fnv1a, owns, type Shard } from '../src/util/shard.js';
import { productToken, version } from '../src/version.js';
import { crawlAdsFile } from './ads-file-job.js';
import { AppRegistry, crawlApp, developerHost, emitAppTarget, finishApp, readListing } from './app-job.js';
import { PendingApps } from './pending-apps.js';
import { readShardReports, writeShardReport, type Stage } from './shard-exchange.js';
import { RowEmitter, type CrawlContext, type Incremental } from './context.js';
import { PreviousLookup } from './previous-lookup.js';
import { crawlDomain } from './domain-job.js';
import { runPool } from './pool.js';
import { Referrals } from './referral-registry.js';
import { deriveRunId, RunJournal, type Phase, type RunState } from './run-journal.js';
import { robotsFor } from './robots-job.js';
import { RunStats } from './run-stats.js';
import { crawlSellers } from './sellers-job.js';

export interface CrawlOptions {
  /** Domain list (path or '-'), or null. */
  domains: string | null;
  /** App list (path or '-'), or null. */
  apps?: string | null;
  outDir: string;
  /** YYYY-MM-DD, UTC. @default today */
  snapshotDate?: string;
  /** @default derived from the arguments, so that the same arguments resume the same run */
  runId?: string;
  limit?: number;
  zipEntry?: string;
  /** Subjects crawled at once. @default 64 */
  concurrency?: number;
  fetch?: Partial<FetchConfig>;
  verdictAgents?: readonly string[];
  verdictPaths?: readonly string[];
  /** @default 'store' */
  obeyRobots?: 'store' | 'all';
  /** Fetch the sellers.json of every ad system named. @default true */
  sellers?: boolean;
  signal?: AbortSignal;
  /**
   * Rows per Parquet row group (each table buffers up to one row group before encoding it, so
   * this sets the writer's memory: 16384 peaked ~45 MB higher than 8192 in a 10k-domain crawl,
   * and 4096 no lower; README Performance). @default 8192
   */
  rowGroupRows?: number;
  /** Seconds between checkpoints (a resumed run redoes at most this much work); 0 = none. @default 300 */
  checkpointSeconds?: number;
  /** Counters of the run; the CLI turns them into a progress display or JSON lines. */
  stats?: RunStats;
  /** This machine's part of a sharded snapshot (`--shard K/N`). @default null (the whole crawl) */
  shard?: Shard | null;
  /** Stage of a sharded snapshot: 'targets', then 'referrals', then 'sellers', each run by every shard. @default 'targets' */
  stage?: Stage;
  /**
   * The earlier snapshot an incremental run builds on: a snapshot root (its latest snapshot date
   * before this one is used), 'auto' (the latest earlier date under `outDir`), or null (none).
   * @default 'auto'
   */
  previous?: string | 'auto' | null;
  /** Conditional requests even for earlier copies that are still fresh. @default false */
  revalidate?: boolean;
  /** Keep fetched bodies content-addressed under DIR/_bodies (what the next run and `reparse` reuse). @default true */
  keepBodies?: boolean;
  /** "Now" for freshness decisions (tests and benchmarks simulate the next night). @default the current time */
  now?: Date;
}

export interface CrawlResult {
  runId: string;
  snapshotDate: string;
  manifestPath: string;
  stats: RunStats;
  list: ListStats | null;
  tables: Record<string, { rows: number; parts: string[] }>;
  /** The run had been completed before: nothing was crawled again. */
  alreadyComplete: boolean;
  /** This attempt went on from an earlier attempt's checkpoint. */
  resumed: boolean;
}

export async function crawl(options: CrawlOptions): Promise<CrawlResult> {
  const snapshotDate = options.snapshotDate ?? new Date().toISOString().slice(0, 10);
  const shard = options.shard ?? null;
  const stage: Stage | 'all' = shard ? (options.stage ?? 'targets') : 'all';
  const runId = options.runId ?? deriveRunId(snapshotDate, runIdentity(options, stage));
  const stats = options.stats ?? new RunStats();
  const manifestFile = path.join(options.outDir, '_runs', `${runId}.json`);
  if (existsSync(manifestFile)) {
    // Idempotent for schedulers: a run that committed is not crawled (or written) twice.
    const m = JSON.parse(readFileSync(manifestFile, 'utf8'));
    stats.phase = 'done';
    return { runId, snapshotDate, manifestPath: manifestFile, stats, list: m.list ?? null, tables: m.tables ?? {}, alreadyComplete: true, resumed: false };
  }

  const signal = options.signal ?? new AbortController().signal;
  // Every request in flight listens on the run's signal: hundreds at once is expected.
  setMaxListeners(0, signal);
  const concurrency = options.concurrency ?? 64;
  const fetchConfig = resolveFetchConfig({ ...options.fetch, concurrency: options.fetch?.concurrency ?? concurrency });
  const journal = await RunJournal.open(options.outDir, runId);
  const saved = journal.previous;
  await sweepTemporaryParts(options.outDir, runId); // temp files of an attempt that was killed
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
  const ctx: CrawlContext = {
    fetcher,
    out: new RowEmitter(writer),
    stats,
    signal,
    bodies: options.keepBodies === false ? null : new BodyStore(path.join(options.outDir, BODIES_DIR)),
    incremental: null,
    clockOffsetMs: options.now ? options.now.getTime() - Date.now() : 0,
    options: {
      verdictAgents: options.verdictAgents ?? DEFAULT_VERDICT_AGENTS,
      verdictPaths: options.verdictPaths ?? DEFAULT_VERDICT_PATHS,
      obeyRobots: options.obeyRobots ?? 'store',
      productToken,
    },
  };
  ctx.incremental = await openIncremental(options, snapshotDate);
  const referrals = new Referrals();
  const appRegistry = new AppRegistry();
  const state: RunState = saved ?? {
    version: 1,
    runId,
    attempt: 0,
    phase: 'domains',
    done: { domains: 0, apps: 0, partners: 0, sellers: 0 },
    partnerList: null,
    sellersList: null,
    referrals: null,
    apps: null,
    stats: null,
    staged: [],
    pendingAppsBytes: 0,
  };
  state.attempt = journal.attempt;
  if (saved) {
    referrals.restore(saved.referrals);
    appRegistry.restore(saved.apps);
    stats.restore(saved.stats);
  }
  const order: Phase[] = ['domains', 'apps', 'partners', 'sellers', 'commit'];
  const reached = (p: Phase) => order.indexOf(state.phase) >= order.indexOf(p);
  const checkpoint = async (phase: Phase, done?: number) => {
    state.phase = phase;
    if (done !== undefined && phase !== 'commit') state.done[phase] = done;
    await ctx.out.settle();
    state.staged = await writer.checkpoint();
    state.referrals = referrals.toJSON();
    state.apps = appRegistry.toJSON();
    state.stats = stats.toJSON();
    if (pending) state.pendingAppsBytes = await pending.sync();
    await journal.save(state);
  };
  /** Runs one phase over its input, skipping what an earlier attempt finished, with checkpoints. */
  const pool = async <T>(phase: Exclude<Phase, 'commit'>, items: AsyncIterable<T> | Iterable<T>, width: number, work: (item: T) => Promise<void>) => {
    const base = state.done[phase];
    const n = await runPool(skipDone(items, base), width, work, {
      signal,
      checkpointEveryMs: (options.checkpointSeconds ?? 300) * 1000,
      onCheckpoint: (pulled) => checkpoint(phase, base + pulled),
    });
    throwIfAborted(signal);
    state.done[phase] = base + n;
    await checkpoint(nextPhase(phase));
  };

  let list: ListStats | null = null;
  let appList: AppListStats | null = null;
  const shardOwns = (host: string) => owns(shard, host);
  const pending = shard ? new PendingApps(options.outDir, snapshotDate, shard) : null;
  try {
    if (stage === 'referrals' || stage === 'sellers') {
      // Learn what every shard found in the previous stage.
      for (const r of await readShardReports(options.outDir, snapshotDate, shard!, stage === 'referrals' ? 'targets' : 'referrals')) referrals.merge(r);
    }

    if (options.domains) {
      stats.phase = 'domains';
      if (options.domains !== '-') void estimateTotal(options.domains, options.limit, shard).then((n) => (stats.targetsTotal = n));
      // Every listed root is known to the registry (also those done before a resume, and those
      // of other shards), so that partners that are listed roots are not fetched twice. The
      // reader de-duplicates the list with that same set: one copy of the roots, not two.
      const src = readDomainList(options.domains, { limit: options.limit, zipEntry: options.zipEntry, seen: referrals.roots });
      list = src.stats;
      const targets = src.targets;
      if ((stage === 'all' || stage === 'targets') && !reached('apps')) {
        await pool('domains', filter(targets, (t) => shardOwns(t.target)), concurrency, (t) => crawlDomain(ctx, t, referrals));
      } else {
        for await (const _ of targets); // only rebuild the roots
      }
    }
    throwIfAborted(signal);

    if (options.apps && (stage === 'all' || stage === 'targets') && !reached('partners')) {
      stats.phase = 'apps';
      const src = readAppList(options.apps, { limit: options.limit, zipEntry: options.zipEntry });
      appList = src.stats;
      if (pending) {
        appRegistry.recordStoreRobots = false;
        await pending.open(state.pendingAppsBytes);
      }
      const mine = shard ? filter(src.apps, (a) => fnv1a(a.appKey) % shard.count === shard.index) : src.apps;
      await pool('apps', mine, concurrency, async (app) => {
        if (!pending) return crawlApp(ctx, app, referrals, appRegistry);
        // Sharded: read the listing here; the shard that owns the developer host follows it (stage 'referrals').
        emitAppTarget(ctx, app);
        const listing = await readListing(ctx, app, referrals, appRegistry);
        if (listing.kind === 'final') await finishApp(ctx, app, listing, referrals, appRegistry);
        else await pending.add(app, listing);
      });
    }
    throwIfAborted(signal);

    if (stage === 'referrals' && !reached('partners')) {
      stats.phase = 'apps';
      // Store hosts' robots.txt, recorded once by their owner; then the apps whose developer host is ours.
      for (const host of [...referrals.storeHosts].sort()) if (shardOwns(host)) await robotsFor(ctx, referrals, host, 'store');
      await pool('apps', filter(pending!.readAll(), (p) => shardOwns(developerHost(p.listing) ?? '')), concurrency, (p) =>
        finishApp(ctx, p.app, p.listing, referrals, appRegistry),
      );
    }

    // Partner phase (ads.txt 1.1 §4.6, §5.7): each partner's ads.txt once per snapshot, one hop.
    // A partner that is itself a listed root, or a subdomain already fetched, is not fetched again.
    if ((stage === 'all' || stage === 'referrals') && !reached('sellers')) {
      stats.phase = 'partners';
      state.partnerList ??= [...referrals.partners].sort().filter((p) => shardOwns(p) && !referrals.isClaimed(p));
      stats.queued = state.partnerList.length - state.done.partners;
      await pool('partners', state.partnerList, concurrency, async (partner) => {
        if (referrals.claimSubject(partner)) {
          const robots = await robotsFor(ctx, referrals, partner, 'inventorypartnerdomain');
          await crawlAdsFile(ctx, { subject: partner, fileKind: 'ads.txt', via: 'inventorypartnerdomain', role: 'inventorypartnerdomain', root: rootDomain(partner) ?? partner, robots }, referrals.adSystems);
        }
        stats.partnersDone++;
        stats.queued--;
      });
    }
    throwIfAborted(signal);

    // sellers.json phase: every ad system named by a record kept in this snapshot, once.
    if ((stage === 'all' || stage === 'sellers') && !reached('commit')) {
      stats.phase = 'sellers';
      state.sellersList ??= options.sellers === false ? [] : [...referrals.adSystems].sort().filter(shardOwns);
      stats.queued = state.sellersList.length - state.done.sellers;
      await pool('sellers', state.sellersList, Math.max(1, Math.min(concurrency, 16)), async (domain) => {
        await crawlSellers(ctx, referrals, domain);
        stats.queued--;
      });
    }
    throwIfAborted(signal);

    stats.phase = 'committing';
    const committed = await writer.commit();
    stats.phase = 'done';
    const manifestPath = await writeRunManifest(options.outDir, runId, {
      run_id: runId,
      snapshot_date: snapshotDate,
      adsnap_version: version,
      node_version: process.version,
      attempts: state.attempt,
      inputs: { domains: options.domains, apps: options.apps ?? null, limit: options.limit ?? null },
      options: { concurrency, obey_robots: ctx.options.obeyRobots, user_agent: fetchConfig.userAgent, sellers: options.sellers !== false, revalidate: options.revalidate ?? false },
      previous_snapshot: ctx.incremental ? ctx.incremental.previous.snapshotDate : null,
      shard: shard ? { index: shard.index, count: shard.count, stage } : null,
      list,
      app_list: appList,
      counts: stats.snapshot(),
      resources: resourceFigures(),
      tables: committed.tables,
      finished_at: new Date().toISOString(),
    });
    if (shard && stage !== 'all' && stage !== 'sellers') {
      await pending?.close();
      await writeShardReport(options.outDir, snapshotDate, shard, stage, referrals.report());
    }
    await journal.remove();
    return { runId, snapshotDate, manifestPath, stats, list, tables: committed.tables, alreadyComplete: false, resumed: saved !== null };
  } catch (err) {
    // Temporary files go; staged parts and the last checkpoint stay, so the same command resumes.
    await writer.abort({ keepCommitted: true });
    throw err;
  } finally {
    await fetcher.close();
    ctx.incremental?.previous.close();
  }
}

/** Opens the earlier snapshot this run builds on, if there is one (issue 7: incremental snapshots). */
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
    revalidate: o.revalidate ?? false,
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
    sellers: o.sellers !== false,
    ...(o.shard ? { shard: `${o.shard.index}/${o.shard.count}`, stage } : {}),
  };
}

function nextPhase(p: Exclude<Phase, 'commit'>): Phase {
  return ({ domains: 'apps', apps: 'partners', partners: 'sellers', sellers: 'commit' } as const)[p];
}

/** Skips the first `n` items (done before the checkpoint a run resumes from). */
async function* skipDone<T>(items: AsyncIterable<T> | Iterable<T>, n: number): AsyncGenerator<T> {
  let i = 0;
  for await (const item of items) if (i++ >= n) yield item;
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

/** CPU and peak memory of this process (worker threads included): the figures capacity planning needs. */
function resourceFigures() {
  const ru = process.resourceUsage();
  return { cpu_user_s: ru.userCPUTime / 1e6, cpu_system_s: ru.systemCPUTime / 1e6, max_rss_mb: Math.round(ru.maxRSS / 1024) };
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('crawl aborted');
}
