import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { DEFAULT_VERDICT_AGENTS, DEFAULT_VERDICT_PATHS } from '../src/parse/robots/index.js';
import { Fetcher, resolveFetchConfig, type FetchConfig } from '../src/fetch/index.js';
import { openSnapshotWriter, writeRunManifest, type SnapshotWriter } from '../src/sink/index.js';
import { readAppList, type AppListStats } from '../src/sources/apps.js';
import { readDomainList, type ListStats } from '../src/sources/domain-list.js';
import { rootDomain } from '../src/util/domain.js';
import { productToken, version } from '../src/version.js';
import { crawlAdsFile } from './ads-file-job.js';
import { RowEmitter, type CrawlContext } from './context.js';
import { AppRegistry, crawlApp } from './app-job.js';
import { crawlDomain } from './domain-job.js';
import { crawlSellers } from './sellers-job.js';
import { runPool } from './pool.js';
import { Referrals } from './referral-registry.js';
import { robotsFor } from './robots-job.js';
import { RunStats } from './run-stats.js';

export interface CrawlOptions {
  /** Domain list (path or '-'), or null. */
  domains: string | null;
  /** App list (path or '-'), or null. */
  apps?: string | null;
  outDir: string;
  /** YYYY-MM-DD, UTC. @default today */
  snapshotDate?: string;
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
  /** Rows per Parquet row group (each table buffers up to one row group before encoding it). @default 16384 */
  rowGroupRows?: number;
  /** Called with the run's counters; the CLI turns it into a progress display or JSON lines. */
  stats?: RunStats;
}

export interface CrawlResult {
  runId: string;
  snapshotDate: string;
  manifestPath: string;
  stats: RunStats;
  list: ListStats | null;
  tables: Record<string, { rows: number; parts: string[] }>;
}

export async function crawl(options: CrawlOptions): Promise<CrawlResult> {
  const snapshotDate = options.snapshotDate ?? new Date().toISOString().slice(0, 10);
  const runId = options.runId ?? `${snapshotDate}-${randomUUID().slice(0, 8)}`;
  const stats = options.stats ?? new RunStats();
  const signal = options.signal ?? new AbortController().signal;
  // Every request in flight listens on the run's signal: hundreds at once is expected.
  setMaxListeners(0, signal);
  const concurrency = options.concurrency ?? 64;
  const fetchConfig = resolveFetchConfig({ ...options.fetch, concurrency: options.fetch?.concurrency ?? concurrency });

  const writer: SnapshotWriter = await openSnapshotWriter({ outDir: options.outDir, snapshotDate, runId, rowGroupRows: options.rowGroupRows ?? Number(process.env.ADSNAP_ROW_GROUP_ROWS ?? 16384) });
  const fetcher = new Fetcher(fetchConfig);
  const ctx: CrawlContext = {
    fetcher,
    out: new RowEmitter(writer),
    stats,
    signal,
    options: {
      verdictAgents: options.verdictAgents ?? DEFAULT_VERDICT_AGENTS,
      verdictPaths: options.verdictPaths ?? DEFAULT_VERDICT_PATHS,
      obeyRobots: options.obeyRobots ?? 'store',
      productToken,
    },
  };
  const referrals = new Referrals();
  let list: ListStats | null = null;
  try {
    if (options.domains) {
      stats.phase = 'domains';
      const src = readDomainList(options.domains, { limit: options.limit, zipEntry: options.zipEntry });
      list = src.stats;
      await runPool(
        src.targets,
        concurrency,
        async (t) => {
          referrals.roots.add(t.target);
          await crawlDomain(ctx, t, referrals);
        },
        signal,
      );
    }
    throwIfAborted(signal);

    let appList: AppListStats | null = null;
    if (options.apps) {
      stats.phase = 'apps';
      const src = readAppList(options.apps, { limit: options.limit, zipEntry: options.zipEntry });
      appList = src.stats;
      const reg = new AppRegistry();
      await runPool(src.apps, concurrency, (app) => crawlApp(ctx, app, referrals, reg), signal);
    }
    throwIfAborted(signal);

    // Partner phase (ads.txt 1.1 §4.6, §5.7): each partner's ads.txt once per snapshot, one hop.
    // A partner that is itself a listed root was already crawled as a root.
    stats.phase = 'partners';
    const partners = [...referrals.partners].sort().filter((p) => referrals.claimSubject(p));
    stats.queued = partners.length;
    await runPool(
      partners,
      concurrency,
      async (partner) => {
        const robots = await robotsFor(ctx, referrals, partner, 'inventorypartnerdomain');
        await crawlAdsFile(ctx, { subject: partner, fileKind: 'ads.txt', via: 'inventorypartnerdomain', role: 'inventorypartnerdomain', root: rootDomain(partner) ?? partner, robots }, referrals.adSystems);
        stats.partnersDone++;
        stats.queued--;
      },
      signal,
    );
    throwIfAborted(signal);

    // sellers.json phase: every ad system named by a record kept in this snapshot, once.
    if (options.sellers !== false) {
      stats.phase = 'sellers';
      const adSystems = [...referrals.adSystems].sort();
      stats.queued = adSystems.length;
      await runPool(
        adSystems,
        Math.max(1, Math.min(concurrency, 16)), // big bodies: fewer at once
        async (domain) => {
          await crawlSellers(ctx, referrals, domain);
          stats.queued--;
        },
        signal,
      );
      throwIfAborted(signal);
    }

    stats.phase = 'committing';
    const committed = await writer.commit();
    stats.phase = 'done';
    const manifestPath = await writeRunManifest(options.outDir, runId, {
      run_id: runId,
      snapshot_date: snapshotDate,
      adsnap_version: version,
      node_version: process.version,
      inputs: { domains: options.domains, apps: options.apps ?? null, limit: options.limit ?? null },
      options: { concurrency, obey_robots: ctx.options.obeyRobots, user_agent: fetchConfig.userAgent },
      list,
      app_list: appList,
      counts: stats.snapshot(),
      resources: resourceFigures(),
      tables: committed.tables,
      finished_at: new Date().toISOString(),
    });
    return { runId, snapshotDate, manifestPath, stats, list, tables: committed.tables };
  } catch (err) {
    await writer.abort();
    throw err;
  } finally {
    await fetcher.close();
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
