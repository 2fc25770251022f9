import type { FetchOptions } from '../src/fetch/index.js';
import type { ListStats } from '../src/sources/domain-list.js';
import type { NamedListRecord } from '../src/sources/named-lists/index.js';
import type { AppListStats } from '../src/sources/apps.js';
import type { Shard } from '../src/util/shard.js';
import { resolveRunLockOptions, type RunLockOptions } from '../src/store/run-lock.js';
import type { RunStats } from './run-stats.js';
import type { Stage } from './shard-exchange.js';
import { checkLocation } from '../src/resolve/sellers-location.js';
import { isCalendarDate } from '../src/util/calendar-date.js';
import { isDuckDbSize } from '../src/util/duckdb-size.js';
import { isRobotsSemantics, type RobotsSemantics } from '../src/parse/robots/index.js';
import type { AgentsCatalogue } from '../src/resolve/agents-catalogue.js';

/**
 * Subjects crawled at once, by default. Chosen from `npm run bench -- realweb` (docs/performance.md):
 * on the real web's mix most of a site's time is waiting (round trips, slow and dead hosts), so
 * 64 lanes left the 2-core machine idle at under 30 sites/s; 256 reach the 100 sites/s a top-1M
 * night needs, within the memory target. Politeness does not depend on it: per-host and per-IP
 * limits hold whatever the lanes.
 */
export const DEFAULT_CONCURRENCY = 256;

/** Seconds between checkpoints of a resumable run: a resumed run redoes at most this much work. */
export const DEFAULT_CHECKPOINT_SECONDS = 300;

/**
 * Rows per Parquet row group. Each table buffers up to one row group before encoding it, so this
 * sets the writer's memory: 16384 peaked ~45 MB higher than 8192 in a 10k-domain crawl, and 4096
 * no lower (docs/performance.md, history).
 */
export const DEFAULT_ROW_GROUP_ROWS = 8192;

export interface CrawlOptions {
  /** Domain list (path or '-'), or null. */
  domains: string | null;
  /** `targets.source` of the domain list's rows. @default the file's base name ('stdin' for '-') */
  domainsSource?: string;
  /** What a list named by provider resolved to (src/sources/named-lists): the manifest's `named_list`. @default null */
  namedList?: NamedListRecord & { from_cache: boolean; offline: boolean };
  /** App list (path or '-'), or null. */
  apps?: string | null;
  outDir: string;
  /** YYYY-MM-DD, UTC. @default today */
  snapshotDate?: string;
  /** @default derived from the arguments, so that the same arguments resume the same run */
  runId?: string;
  limit?: number;
  zipEntry?: string;
  /** Subjects crawled at once. @default DEFAULT_CONCURRENCY (256) */
  concurrency?: number;
  fetch?: FetchOptions;
  /** The `--config FILE` the fetch knobs were read from, echoed in the manifest. @default null */
  configFile?: string | null;
  verdictAgents?: readonly string[];
  verdictPaths?: readonly string[];
  /**
   * The AI and ad crawlers whose robots.txt treatment is recorded per host (robots_agent_access),
   * checked by loadAgentsCatalogue (`--agents-catalogue FILE`). @default data/agents-catalogue.json
   */
  agentsCatalogue?: AgentsCatalogue;
  /** @default 'store' */
  obeyRobots?: 'store' | 'all';
  /**
   * The reading of robots.txt for the run's verdicts and its own obedience: 'rfc' (RFC 9309) or
   * 'google' (Google's reference matcher; docs/reference/robots-semantics.md). @default 'rfc'
   */
  robotsSemantics?: RobotsSemantics;
  /**
   * Ask each listed site for its consent files beyond robots.txt: /.well-known/tdmrep.json (W3C
   * TDMRep), /llms.txt and the RSL licence its robots.txt names on its own host; three requests
   * more per site at most (docs/reference/ai-signals.md). @default false
   */
  aiSignals?: boolean;
  /** Fetch the sellers.json of every ad system named (and of the intermediaries they name). @default true */
  sellers?: boolean;
  /**
   * Where ad systems publish sellers.json, on top of the shipped table (data/sellers-locations.tsv):
   * ad system domain → URL. The file stays the ad system's (files.subject, sellers.ad_system_domain).
   * @default {}
   */
  sellersLocations?: Readonly<Record<string, string>>;
  /**
   * The last round of the sellers phase: 0 = only the ad systems named by records; k = also the
   * sellers.json of intermediaries up to k INTERMEDIARY/BOTH links away. @default 5
   */
  sellersDepth?: number;
  /** At most this many intermediary sellers.json (rounds ≥ 1) a night; reaching it is in the manifest. @default 20000 */
  maxIntermediaries?: number;
  signal?: AbortSignal;
  /** Rows per Parquet row group (the writer's memory). @default DEFAULT_ROW_GROUP_ROWS (8192) */
  rowGroupRows?: number;
  /** DuckDB's memory limit for the commit's steps (compaction, night summary; the CLI reads ADSNAP_COMMIT_MEMORY). @default DEFAULT_COMMIT_MEMORY (128MB) */
  commitMemory?: string;
  /**
   * Kill-during-commit drills: pause `ms` after each step of the commit, or only after the named
   * `steps` (run-commit.ts; the CLI reads ADSNAP_COMMIT_STEP_DELAY_MS and ADSNAP_COMMIT_PAUSE_STEPS). @default none
   */
  commitPause?: { ms: number; steps: readonly string[] | null };
  /** Seconds between checkpoints (a resumed run redoes at most this much work); 0 = none. @default DEFAULT_CHECKPOINT_SECONDS (300) */
  checkpointSeconds?: number;
  /** Counters of the run; the CLI turns them into a progress display or JSON lines. */
  stats?: RunStats;
  /** This machine's part of a sharded snapshot (`--shard K/N`). @default null (the whole crawl) */
  shard?: Shard | null;
  /**
   * Stage of a sharded snapshot: 'targets', then 'referrals', then 'sellers' (the ad systems'
   * sellers.json), each run by every shard, then 'intermediaries' (the later rounds), run by shard 0
   * only. @default 'targets'
   */
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
  /**
   * The run lock's heartbeat and stale bound (`--lock-heartbeat`, `--lock-stale`; recorded in the
   * manifest as options.lock). @default RUN_LOCK_DEFAULTS (5 s, 30 s)
   */
  lock?: RunLockOptions;
  /**
   * Rewrite each table's parts into one part sorted by its lookup key before the commit (the
   * reader's layout; src/sink/compact.ts). @default true
   */
  compact?: boolean;
  /**
   * Stop once the crawl is sealed (its parts staged, its checkpoint in phase 'compact'), without
   * the commit: the next crawl() of the same run commits it. `adsnap crawl` crawls so in a child
   * process and commits in its own, so that the crawl's memory is gone before the commit's DuckDB
   * (src/cli/crawl-process.ts). The result's `sealedOnly` is true then. @default false
   */
  untilSealed?: boolean;
}

export interface CrawlResult {
  runId: string;
  snapshotDate: string;
  manifestPath: string;
  stats: RunStats;
  list: ListStats | null;
  /** The app list's counts and first malformed lines, as the manifest records them (`app_list`). */
  appList?: AppListStats | null;
  tables: Record<string, { rows: number; parts: string[] }>;
  /** The run had been completed before: nothing was crawled again. */
  alreadyComplete: boolean;
  /** This attempt went on from an earlier attempt's checkpoint. */
  resumed: boolean;
  /** `untilSealed`: the crawl is sealed and not committed (`manifestPath` is empty, `tables` too). */
  sealedOnly?: boolean;
}

/** Upper bounds of the numeric options (a typo must not become 10 million sockets). */
export const CRAWL_LIMITS = { concurrency: 4096, checkpointSeconds: 86_400, sellersDepth: 32, maxIntermediaries: 10_000_000 } as const;

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
  if (o.commitMemory !== undefined && !isDuckDbSize(o.commitMemory)) throw new TypeError(`commitMemory must be a size such as 128MB or 1GB, got ${JSON.stringify(o.commitMemory)}`);
  int('sellersDepth', o.sellersDepth, 0, CRAWL_LIMITS.sellersDepth);
  int('maxIntermediaries', o.maxIntermediaries, 0, CRAWL_LIMITS.maxIntermediaries);
  for (const [k, v] of Object.entries(o.sellersLocations ?? {})) {
    if (typeof v !== 'string') throw new TypeError(`sellersLocations[${JSON.stringify(k)}] must be a URL string`);
    checkLocation(k, v, 'sellersLocations');
  }
  if (o.stage === 'intermediaries' && o.shard && o.shard.index !== 0) {
    throw new TypeError(`the intermediaries stage runs once, as shard 0 of ${o.shard.count} (each round needs every file of the round before): run it with --shard 0/${o.shard.count}`);
  }
  if (o.now !== undefined && Number.isNaN(o.now.getTime())) throw new TypeError('now must be a valid time');
  resolveRunLockOptions(o.lock);
  if (o.robotsSemantics !== undefined && !isRobotsSemantics(o.robotsSemantics)) throw new TypeError(`robotsSemantics must be 'rfc' or 'google', got ${JSON.stringify(o.robotsSemantics)}`);
  if (o.agentsCatalogue !== undefined && (!Array.isArray(o.agentsCatalogue?.agents) || typeof o.agentsCatalogue.sha256 !== 'string')) {
    throw new TypeError('agentsCatalogue must be a catalogue read by loadAgentsCatalogue or parseAgentsCatalogue');
  }
}

const RUN_ID = /^[A-Za-z0-9_-]{1,80}$/;

/** `sellersLocations` normalised (ad system lower-cased ASCII, URL as parsed), sorted by ad system. */
export function sellersLocationOverrides(o: Pick<CrawlOptions, 'sellersLocations'>): Record<string, string> {
  const entries = Object.entries(o.sellersLocations ?? {}).map(([k, v]) => checkLocation(k, v, 'sellersLocations'));
  return Object.fromEntries(entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
}


/** A list with no accepted entry: nothing is committed (unless `allowEmpty`). */
export class EmptyListError extends Error {
  readonly code = 'LIST_EMPTY';
}

