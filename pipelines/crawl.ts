import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { setMaxListeners } from 'node:events';
import path from 'node:path';
import { DEFAULT_VERDICT_AGENTS, DEFAULT_VERDICT_PATHS } from '../src/parse/robots/index.js';
import { Fetcher, resolveFetchConfig, type FetchOptions } from '../src/fetch/index.js';
import { compactStaged } from '../src/sink/compact.js';
import type { StagedPart } from '../src/sink/index.js';
import { openSnapshotWriter, planCommit, planTables, publishPlan, sweepTemporaryParts, writeRunManifest, type SnapshotWriter } from '../src/sink/index.js';
import { tableNames } from '../schemas/tables.js';
import { fingerprintFile, spoolStream, type ListFingerprint } from '../src/sources/fingerprint.js';
import { RunLock, type RunLockOptions } from '../src/store/run-lock.js';
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
import { readShardReports, writeShardReport, type ShardReport, type Stage } from './shard-exchange.js';
import { RowEmitter, type CrawlContext, type Incremental } from './context.js';
import { PreviousLookup } from './previous-lookup.js';
import { crawlDomain } from './domain-job.js';
import { runPool, type DoneSet } from './pool.js';
import { Referrals } from './referral-registry.js';
import { deriveRunId, RunJournal, type Phase, type RunState, type WorkPhase } from './run-journal.js';
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
  fetch?: FetchOptions;
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
  /**
   * Reuse earlier copies that are still fresh without a request (ads.txt 1.1 §3.6, RFC 9309
   * §2.4 lifetimes). By default every file is asked for every night, conditionally where the
   * earlier snapshot has validators, so that a snapshot says what each site served that day.
   * @default false
   */
  reuseFresh?: boolean;
  /** Keep fetched bodies content-addressed under DIR/_bodies (what the next run and `reparse` reuse). @default true */
  keepBodies?: boolean;
  /** "Now" for freshness decisions (tests and benchmarks simulate the next night). @default the current time */
  now?: Date;
  /** Discard an earlier attempt's checkpoint and staged parts and start the run over. @default false */
  restart?: boolean;
  /** Commit a snapshot even when a list has no accepted entry. @default false (exit 1, nothing committed) */
  allowEmpty?: boolean;
  /** The run lock's heartbeat and staleness (tests). */
  lock?: RunLockOptions;
  /**
   * Rewrite each table's parts into one part sorted by its lookup key before the commit (the
   * reader's layout; src/sink/compact.ts). @default true
   */
  compact?: boolean;
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

/** Upper bounds of the numeric options (a typo must not become 10 million sockets). */
export const CRAWL_LIMITS = { concurrency: 4096, checkpointSeconds: 86_400 } as const;

/** The input is not the one this run was started with (or committed from). */
export class RunInputChangedError extends Error {
  readonly code = 'RUN_INPUT_CHANGED';
}

/** A list with no accepted entry: nothing is committed (unless `allowEmpty`). */
export class EmptyListError extends Error {
  readonly code = 'LIST_EMPTY';
}

/**
 * Checks every option before anything touches the disk (a run id like `../x` must never reach
 * a path). Throws TypeError naming the option.
 */
export function validateCrawlOptions(o: CrawlOptions): void {
  if (!o.domains && !o.apps) throw new TypeError('give a domain list and/or an app list');
  if (typeof o.outDir !== 'string' || o.outDir === '') throw new TypeError('outDir must be a non-empty path');
  if (o.runId !== undefined && !RUN_ID.test(o.runId)) throw new TypeError(`run id must be 1–80 letters, digits, '-' or '_' (a plain name, not a path), got ${JSON.stringify(o.runId)}`);
  if (o.snapshotDate !== undefined && !isCalendarDate(o.snapshotDate)) throw new TypeError(`snapshot date must be a calendar date YYYY-MM-DD, got ${JSON.stringify(o.snapshotDate)}`);
  if ((o.domains === '-' || o.apps === '-') && o.runId === undefined) throw new TypeError('a list read from stdin needs a run id (--run-id NAME): the run cannot be recognised by its list path');
  if (o.domains === '-' && o.apps === '-') throw new TypeError('only one list can be read from stdin');
  const int = (name: string, v: number | undefined, min: number, max: number) => {
    if (v !== undefined && (!Number.isInteger(v) || v < min || v > max)) throw new TypeError(`${name} must be an integer from ${min} to ${max}, got ${v}`);
  };
  int('concurrency', o.concurrency, 1, CRAWL_LIMITS.concurrency);
  int('checkpointSeconds', o.checkpointSeconds, 0, CRAWL_LIMITS.checkpointSeconds);
  int('limit', o.limit, 0, Number.MAX_SAFE_INTEGER);
  int('rowGroupRows', o.rowGroupRows, 1, 1 << 24);
  if (o.now !== undefined && Number.isNaN(o.now.getTime())) throw new TypeError('now must be a valid time');
}

const RUN_ID = /^[A-Za-z0-9_-]{1,80}$/;

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
  if (existsSync(manifestFile) && !options.restart) {
    const result = await alreadyComplete(options, runId, snapshotDate, manifestFile, stats, fileFingerprints);
    // An attempt killed after its manifest (the run is complete) may have left its staging folder.
    if (existsSync(path.join(options.outDir, '_staging', `${runId}.lock`)) || existsSync(path.join(options.outDir, '_staging', runId))) {
      const lock = await RunLock.acquire(path.join(options.outDir, '_staging'), runId, options.lock);
      await rm(path.join(options.outDir, '_staging', runId), { recursive: true, force: true }).finally(() => lock.release());
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
    if (saved?.phase === 'compact' || saved?.phase === 'commit') {
      stats.restore(saved.stats);
      stats.phase = 'committing';
      return saved.phase === 'compact' ? await compactAndCommit(options, journal, lock, saved, stats, true) : await finishCommit(options, journal, lock, saved, stats, true);
    }
    return await crawlPhases(options, { runId, snapshotDate, shard, stage, stats, journal, lock, inputs });
  } finally {
    await lock.release();
  }
}

interface RunInputs {
  /** What the readers open: the list's path, or the copy of stdin. */
  domains: string | null;
  apps: string | null;
  fingerprints: RunState['inputs'];
}

/** The lists as this attempt reads them; stdin is copied into the run's staging folder first. */
async function readInputs(o: CrawlOptions, stagingDir: string, files: { domains: ListFingerprint | null; apps: ListFingerprint | null }): Promise<RunInputs> {
  const one = async (input: string | null | undefined, name: string, fp: ListFingerprint | null) => {
    if (!input) return { path: null, fp: null };
    if (input !== '-') return { path: input, fp: { ...fp!, complete: true } };
    const spool = path.join(stagingDir, `${name}.stdin`);
    return { path: spool, fp: { ...(await spoolStream(process.stdin, spool)), complete: true } };
  };
  const d = await one(o.domains, 'domains', files.domains);
  const a = await one(o.apps, 'apps', files.apps);
  return { domains: d.path, apps: a.path, fingerprints: { domains: d.fp, apps: a.fp } };
}

function checkSameInputs(saved: RunState, now: RunState['inputs']): void {
  for (const kind of ['domains', 'apps'] as const) {
    const was = saved.inputs[kind];
    const is = now[kind];
    if ((was === null) !== (is === null) || (was && is && (was.sha256 !== is.sha256 || was.bytes !== is.bytes))) {
      throw new RunInputChangedError(
        `the ${kind} list is not the one run ${saved.runId} started with (sha256 ${was?.sha256.slice(0, 16) ?? 'none'}…, ${was?.bytes ?? 0} bytes; now ${is?.sha256.slice(0, 16) ?? 'none'}…, ${is?.bytes ?? 0} bytes). ` +
          `A resume must read the same list: restore it, or run with --restart to discard the earlier attempt's work and crawl this list from the start.`,
      );
    }
  }
}

/** The run committed before: nothing to do, if it was committed from these very lists. */
async function alreadyComplete(o: CrawlOptions, runId: string, snapshotDate: string, manifestFile: string, stats: RunStats, files: { domains: ListFingerprint | null; apps: ListFingerprint | null }): Promise<CrawlResult> {
  const m = JSON.parse(readFileSync(manifestFile, 'utf8')) as { list?: ListStats; tables?: CrawlResult['tables']; input_fingerprints?: RunState['inputs'] };
  for (const kind of ['domains', 'apps'] as const) {
    const input = kind === 'domains' ? o.domains : o.apps;
    const recorded = m.input_fingerprints?.[kind];
    if (!input || !recorded) continue;
    const now = input === '-' ? await hashStream(process.stdin) : files[kind]!;
    if (now.sha256 !== recorded.sha256) {
      throw new RunInputChangedError(
        `run ${runId} of ${snapshotDate} was committed from another ${kind} list (sha256 ${recorded.sha256.slice(0, 16)}…; this one is ${now.sha256.slice(0, 16)}…). ` +
          `Give this list a run of its own (--run-id NAME), or remove ${manifestFile} and the parts it lists to crawl it again.`,
      );
    }
  }
  stats.phase = 'done';
  return { runId, snapshotDate, manifestPath: manifestFile, stats, list: m.list ?? null, tables: m.tables ?? {}, alreadyComplete: true, resumed: false };
}

async function hashStream(input: AsyncIterable<Uint8Array>): Promise<ListFingerprint> {
  const h = createHash('sha256');
  let bytes = 0;
  for await (const c of input) {
    h.update(c);
    bytes += c.length;
  }
  return { sha256: h.digest('hex'), bytes };
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
  const concurrency = options.concurrency ?? 64;
  const fetchConfig = resolveFetchConfig({ ...options.fetch, concurrency: options.fetch?.concurrency ?? concurrency });
  const saved = journal.previous;
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
      obeyRobots: options.obeyRobots ?? 'store',
      productToken,
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
   */
  const pool = async <T>(phase: WorkPhase, items: AsyncIterable<T> | Iterable<T>, width: number, work: (c: CrawlContext, item: T) => Promise<void | (() => void)>) => {
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
    state.done[phase] = { prefix: Number.MAX_SAFE_INTEGER, extra: [] };
    await checkpoint(nextPhase(phase));
  };

  let list: ListStats | null = null;
  let appList: AppListStats | null = null;
  const shardOwns = (host: string) => owns(shard, host);
  try {
    ctx.incremental = await openIncremental(options, snapshotDate);
    if (stage === 'referrals' || stage === 'sellers') {
      // Learn what every shard found in the previous stage.
      for (const r of await readShardReports(options.outDir, snapshotDate, shard!, stage === 'referrals' ? 'targets' : 'referrals')) referrals.merge(r);
    }

    if (inputs.domains) {
      stats.phase = 'domains';
      void estimateTotal(inputs.domains, options.limit, shard).then((n) => (stats.targetsTotal = n));
      // Every listed root is known to the registry (also those done before a resume, and those
      // of other shards), so that partners that are listed roots are not fetched twice. The
      // reader de-duplicates the list with that same set: one copy of the roots, not two.
      const src = readDomainList(inputs.domains, { limit: options.limit, zipEntry: options.zipEntry, seen: referrals.roots, sourceName: options.domains === '-' ? 'stdin' : undefined });
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

    // sellers.json phase: every ad system named by a record kept in this snapshot, once.
    if ((stage === 'all' || stage === 'sellers') && !reached('seal')) {
      stats.phase = 'sellers';
      state.sellersList ??= options.sellers === false ? [] : [...referrals.adSystems].sort().filter(shardOwns);
      stats.queued = state.sellersList.length - doneCount(state.done.sellers, state.sellersList.length);
      await pool('sellers', state.sellersList, Math.max(1, Math.min(concurrency, 16)), async (c, domain) => {
        await crawlSellers(c, referrals, domain);
        stats.queued--;
      });
    }
    throwIfAborted(signal);

    // The crawl is over: seal every part and save that state (phase 'compact'), then compact,
    // plan the commit and save the plan before publishing anything.
    stats.phase = 'committing';
    state.staged = await writer.seal();
    if (pending) await pending.close();
    state.stats = stats.toJSON();
    state.shardReport = shard && stage !== 'all' && stage !== 'sellers' ? { stage, report: referrals.report() } : null;
    state.manifest = {
      run_id: runId,
      snapshot_date: snapshotDate,
      adsnap_version: version,
      node_version: process.version,
      inputs: { domains: options.domains, apps: options.apps ?? null, limit: options.limit ?? null },
      input_fingerprints: inputs.fingerprints,
      options: { concurrency, obey_robots: ctx.options.obeyRobots, user_agent: fetchConfig.userAgent, sellers: options.sellers !== false, reuse_fresh: options.reuseFresh ?? false, compact: options.compact !== false },
      previous_snapshot: ctx.incremental ? ctx.incremental.previous.snapshotDate : null,
      shard: shard ? { index: shard.index, count: shard.count, stage } : null,
      list,
      app_list: appList,
    };
    state.phase = 'compact';
    state.commit = null;
    await lock.assertHeld();
    await journal.save(state);
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

/**
 * Step 1 of the commit: the staged parts are rewritten into the reader's layout (one sorted part
 * per table, src/sink/compact.ts), then the plan is saved (phase 'commit'). Redone from the
 * sealed parts after a kill: their list is what phase 'compact' saved.
 */
async function compactAndCommit(options: CrawlOptions, journal: RunJournal, lock: RunLock, state: RunState, stats: RunStats, resumed: boolean): Promise<CrawlResult> {
  const manifest = state.manifest as { run_id: string; snapshot_date: string };
  await commitPause()('sealed');
  const t0 = performance.now();
  // The commit's own memory (DuckDB's sort is native memory): sampled, as the run's peak hides it.
  let peakRss = process.memoryUsage.rss();
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 50);
  let parts: StagedPart[];
  try {
    parts = options.compact === false ? state.staged : await compactStaged(state.staged, { stagingDir: journal.dir, runId: manifest.run_id, snapshotDate: manifest.snapshot_date });
  } finally {
    clearInterval(sampler);
  }
  state.manifest = { ...state.manifest, commit_compact_s: Math.round(performance.now() - t0) / 1000, commit_peak_rss_mb: Math.round(peakRss / 2 ** 20) };
  state.staged = parts;
  state.commit = await planCommit(options.outDir, manifest.snapshot_date, parts);
  state.phase = 'commit';
  await lock.assertHeld();
  await journal.save(state);
  return finishCommit(options, journal, lock, state, stats, resumed);
}

/**
 * Steps 2–4 of the commit (src/sink/commit.ts): publish the planned parts, write the manifest,
 * remove the staging folder. Each can be redone: a resumed run in phase 'commit' starts here.
 */
async function finishCommit(options: CrawlOptions, journal: RunJournal, lock: RunLock, state: RunState, stats: RunStats, resumed: boolean): Promise<CrawlResult> {
  const plan = state.commit!;
  const pause = commitPause();
  await pause('planned');
  await publishPlan(options.outDir, journal.dir, plan, async () => {
    await lock.assertHeld();
    await journal.save(state);
  }, { afterLink: () => pause('linked') });
  const tables = planTables(plan, tableNames);
  const manifest = state.manifest as Record<string, unknown> & { run_id: string; snapshot_date: string; list: ListStats | null };
  stats.phase = 'done';
  await lock.assertHeld();
  const manifestPath = await writeRunManifest(options.outDir, manifest.run_id, {
    ...manifest,
    attempts: state.attempt,
    counts: stats.snapshot(),
    resources: resourceFigures(),
    tables,
    finished_at: new Date().toISOString(),
  });
  await pause('manifest');
  const sr = state.shardReport as { stage: Stage; report: ShardReport } | null;
  if (sr && options.shard) await writeShardReport(options.outDir, manifest.snapshot_date, options.shard, sr.stage, sr.report);
  await journal.remove();
  return { runId: manifest.run_id, snapshotDate: manifest.snapshot_date, manifestPath, stats, list: manifest.list ?? null, tables, alreadyComplete: false, resumed };
}

/**
 * Kill-during-commit drills: `ADSNAP_COMMIT_STEP_DELAY_MS` pauses after each step of the commit
 * (`planned`: the plan saved; `linked`: each part linked; `manifest`: the manifest written), or
 * only after those named in `ADSNAP_COMMIT_PAUSE_STEPS` (comma-separated), and says so on
 * stderr, so a test can SIGKILL the process at each of them.
 */
function commitPause(): (step: string) => Promise<void> {
  const ms = Number(process.env.ADSNAP_COMMIT_STEP_DELAY_MS ?? 0);
  if (!(ms > 0)) return async () => {};
  const only = process.env.ADSNAP_COMMIT_PAUSE_STEPS?.split(',').map((x) => x.trim());
  return async (step) => {
    process.stderr.write(`adsnap crawl: commit step ${step}\n`);
    if (!only || only.includes(step)) await new Promise((r) => setTimeout(r, ms));
  };
}

function none(): DoneSet {
  return { prefix: 0, extra: [] };
}

function doneCount(d: DoneSet, total: number): number {
  return Math.min(total, d.prefix) + d.extra.filter((i) => i < total).length;
}

function isCalendarDate(s: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().slice(0, 10) === s;
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
    sellers: o.sellers !== false,
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

/** CPU and peak memory of this process (worker threads included): the figures capacity planning needs. */
function resourceFigures() {
  const ru = process.resourceUsage();
  return { cpu_user_s: ru.userCPUTime / 1e6, cpu_system_s: ru.systemCPUTime / 1e6, max_rss_mb: Math.round(ru.maxRSS / 1024) };
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('crawl aborted');
}
