/**
 * `adsnap crawl`'s flags, read once at the edge into the crawl's options (pipelines/crawl-options.ts)
 * and the progress display's settings. Every bad value is a UsageError naming its flag (exit 2),
 * before anything is crawled or created.
 */
import { readFile } from 'node:fs/promises';
import { CRAWL_LIMITS, DEFAULT_CHECKPOINT_SECONDS, type CrawlOptions } from '../../pipelines/crawl-options.js';
import type { Stage } from '../../pipelines/shard-exchange.js';
import { formatDnsServer, parseAllowCidr, parseConnectTo, parseDnsServer, type FetchOptions } from '../fetch/index.js';
import { isRobotsSemantics } from '../parse/robots/index.js';
import { loadAgentsCatalogue, type AgentsCatalogue } from '../resolve/agents-catalogue.js';
import { isCalendarDate, today } from '../util/calendar-date.js';
import { parseShard, type Shard } from '../util/shard.js';
import { intFlag, parseCommandArgs } from './args.js';
import { KNOB_FLAGS, resolveKnobs, type Knobs } from './crawl-knobs.js';
import { crawlEnv } from './crawl-env.js';
import { resolveDomainsList } from './list-knobs.js';
import { checkOutDir } from './out-dir.js';
import { isNamedList } from '../sources/named-lists/index.js';
import { defaultUserAgent } from '../util/version.js';
import { UsageError } from './usage-error.js';

/** Seconds between JSON progress lines (`--log-interval`). */
export const DEFAULT_LOG_INTERVAL_SECONDS = 10;

const CRAWL_FLAGS = {
  domains: { type: 'string' },
  apps: { type: 'string' },
  out: { type: 'string' },
  'zip-entry': { type: 'string' },
  limit: { type: 'string' },
  top: { type: 'string' },
  'list-cache': { type: 'string' },
  'list-provider-url': { type: 'string', multiple: true },
  'snapshot-date': { type: 'string' },
  'run-id': { type: 'string' },
  'connect-to': { type: 'string', multiple: true },
  cacert: { type: 'string', multiple: true },
  'dns-server': { type: 'string', multiple: true },
  'dns-timeout': { type: 'string' },
  'allow-addresses': { type: 'string', multiple: true },
  ...KNOB_FLAGS,
  'user-agent': { type: 'string' },
  'obey-robots': { type: 'string' },
  'robots-semantics': { type: 'string' },
  'no-sellers': { type: 'boolean' },
  'agents-catalogue': { type: 'string' },
  'sellers-location': { type: 'string', multiple: true },
  'sellers-locations': { type: 'string' },
  'sellers-depth': { type: 'string' },
  'max-intermediaries': { type: 'string' },
  progress: { type: 'string' },
  'log-interval': { type: 'string' },
  'checkpoint-interval': { type: 'string' },
  shard: { type: 'string' },
  previous: { type: 'string' },
  revalidate: { type: 'boolean' },
  'reuse-fresh': { type: 'boolean' },
  'ai-signals': { type: 'boolean' },
  'no-bodies': { type: 'boolean' },
  now: { type: 'string' },
  stage: { type: 'string' },
  restart: { type: 'boolean' },
  'allow-empty': { type: 'boolean' },
} as const;

type Values = ReturnType<typeof parseCommandArgs<typeof CRAWL_FLAGS>>['values'];

export interface ProgressSettings {
  mode: 'tty' | 'json' | 'none';
  intervalMs: number;
}

/** The crawl's options (without signal and stats, which the command adds) and how to show progress. */
export interface CrawlInvocation {
  options: CrawlOptions & { outDir: string };
  progress: ProgressSettings;
  /** What a list named by provider resolved to, for stderr (null: a list file). */
  notice: string | null;
}

export async function readCrawlFlags(argv: string[]): Promise<CrawlInvocation> {
  const { values, positionals } = parseCommandArgs(argv, CRAWL_FLAGS);
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const outDir = checkLists(values);
  await checkOutDir(outDir);
  const givenDate = values['snapshot-date'];
  if (givenDate !== undefined && !isCalendarDate(givenDate)) throw new UsageError(`--snapshot-date must be YYYY-MM-DD, got ${JSON.stringify(givenDate)}`);
  // Fixed here, once: the named list's day and the run's date are the same (crawl-process.ts hands it to the crawling child).
  const snapshotDate = givenDate ?? today();
  const robots = robotsFlags(values);
  const progressMode = progressFlag(values.progress);
  const fetch = await fetchFlags(values);
  const { shard, stage } = shardFlags(values);
  const agentsCatalogue = await catalogueFlag(values['agents-catalogue']);
  const now = nowFlag(values.now);
  const runId = runIdFlag(values);
  // Time-outs, caps, retries, holds, DNS cache, concurrency, sellers.json locations and rounds:
  // flags over --config FILE (crawl-knobs.ts).
  const knobs = await resolveKnobs(values);
  const limit = listLimit(values.limit, values.top);
  // A list named by provider: resolved to a cached file now (a request only when the cache lacks it).
  const named = await namedDomains(values, knobs, outDir, snapshotDate);
  const options: CrawlInvocation['options'] = {
    domains: named.domains,
    ...named.options,
    apps: values.apps ?? null,
    outDir,
    snapshotDate,
    runId,
    restart: values.restart ?? false,
    allowEmpty: values['allow-empty'] ?? false,
    limit,
    zipEntry: values['zip-entry'],
    concurrency: knobs.concurrency,
    ...robots,
    sellers: !values['no-sellers'],
    sellersLocations: knobs.sellers.locations,
    agentsCatalogue,
    sellersDepth: knobs.sellers.depth,
    maxIntermediaries: knobs.sellers.maxIntermediaries,
    checkpointSeconds: intFlag('checkpoint-interval', values['checkpoint-interval'], DEFAULT_CHECKPOINT_SECONDS, 0, CRAWL_LIMITS.checkpointSeconds),
    shard,
    stage,
    previous: values.previous === undefined ? 'auto' : values.previous === 'none' ? null : values.previous,
    reuseFresh: values['reuse-fresh'] ?? false,
    aiSignals: values['ai-signals'] ?? false,
    keepBodies: !values['no-bodies'],
    now,
    configFile: knobs.configFile,
    lock: knobs.lock,
    fetch: { ...fetch, ...(values['user-agent'] ? { userAgent: values['user-agent'] } : {}), ...knobs.fetch },
    // The environment's tuning knobs and drills, read here and nowhere below (crawl-env.ts).
    ...crawlEnv(process.env),
  };
  const intervalMs = intFlag('log-interval', values['log-interval'], DEFAULT_LOG_INTERVAL_SECONDS, 1, 86_400) * 1000;
  return { options, progress: { mode: progressMode, intervalMs }, notice: named.notice };
}

/** `--limit N` and its alias `--top N` (the first N entries); both given must agree. */
function listLimit(limit: string | undefined, top: string | undefined): number | undefined {
  const l = limit === undefined ? undefined : intFlag('limit', limit, 0, 0);
  const t = top === undefined ? undefined : intFlag('top', top, 0, 0);
  if (l !== undefined && t !== undefined && l !== t) throw new UsageError(`--top ${t} and --limit ${l} disagree: give one`);
  return t ?? l;
}

/** `--domains PROVIDER:SELECTOR` resolved to a file of the list cache, with what the manifest and stderr say of it. */
async function namedDomains(values: Values, knobs: Knobs, outDir: string, snapshotDate: string): Promise<{ domains: string | null; options: Pick<CrawlOptions, 'domainsSource' | 'namedList'>; notice: string | null }> {
  if (!values.domains || !isNamedList(values.domains)) return { domains: values.domains ?? null, options: {}, notice: null };
  const named = await resolveDomainsList(values.domains, knobs.lists, { outDir, day: snapshotDate, userAgent: values['user-agent'] ?? knobs.fetch.userAgent ?? defaultUserAgent });
  return {
    domains: named.file,
    options: { domainsSource: named.sourceName, namedList: { ...named.record, from_cache: named.fromCache, offline: named.offline } },
    notice: `adsnap crawl: ${values.domains} is ${named.sourceName}, ${named.record.bytes} bytes${named.fromCache ? ' (from the list cache)' : ''}${named.record.note ? `; ${named.record.note}` : ''}`,
  };
}

/** Which lists, and where the output goes (returned). */
function checkLists(values: Values): string {
  if (!values.domains && !values.apps) throw new UsageError('give --domains FILE and/or --apps FILE');
  if (values.domains === '-' && values.shard !== undefined) throw new UsageError('a sharded crawl reads its list again in each stage: give a file, not stdin');
  if (!values.out) throw new UsageError('--out DIR is required');
  return values.out;
}

function robotsFlags(values: Values): Pick<CrawlOptions, 'obeyRobots' | 'robotsSemantics'> {
  const obeyRobots = values['obey-robots'] ?? 'store';
  if (obeyRobots !== 'store' && obeyRobots !== 'all') throw new UsageError(`--obey-robots must be 'store' or 'all'`);
  const robotsSemantics = values['robots-semantics'] ?? 'rfc';
  if (!isRobotsSemantics(robotsSemantics)) throw new UsageError(`--robots-semantics must be 'rfc' or 'google', got ${JSON.stringify(robotsSemantics)}`);
  return { obeyRobots, robotsSemantics };
}

function progressFlag(value: string | undefined): ProgressSettings['mode'] {
  const mode = value ?? (process.stderr.isTTY ? 'tty' : 'json');
  if (mode !== 'tty' && mode !== 'json' && mode !== 'none') throw new UsageError(`--progress must be tty, json or none`);
  return mode;
}

/** --connect-to, --dns-server, --allow-addresses, --dns-timeout and --cacert. */
async function fetchFlags(values: Values): Promise<Pick<FetchOptions, 'connectTo' | 'caCerts' | 'dnsServers' | 'allowAddresses' | 'dnsTimeoutMs'>> {
  const connectTo = asUsage(() => (values['connect-to'] ?? []).map(parseConnectTo));
  const network = asUsage(() => ({
    dnsServers: (values['dns-server'] ?? []).map((s) => formatDnsServer(parseDnsServer(s))),
    allowAddresses: (values['allow-addresses'] ?? []).map(parseAllowCidr),
    ...(values['dns-timeout'] !== undefined ? { dnsTimeoutMs: intFlag('dns-timeout', values['dns-timeout'], 0, 1, 60_000) } : {}),
  }));
  const caCerts: string[] = [];
  for (const file of values.cacert ?? []) {
    try {
      caCerts.push(await readFile(file, 'utf8'));
    } catch (err) {
      throw new UsageError(`--cacert ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  return { connectTo, caCerts, ...network };
}

function shardFlags(values: Values): { shard: Shard | null; stage: Stage } {
  const spec = values.shard;
  const shard = spec === undefined ? null : asUsage(() => parseShard(spec));
  const stage = values.stage ?? 'targets';
  if (stage !== 'targets' && stage !== 'referrals' && stage !== 'sellers' && stage !== 'intermediaries') throw new UsageError(`--stage must be targets, referrals, sellers or intermediaries`);
  if (values.stage !== undefined && !shard) throw new UsageError('--stage needs --shard K/N');
  if (stage === 'intermediaries' && shard && shard.index !== 0) throw new UsageError(`--stage intermediaries runs once, as --shard 0/${shard.count} (each round needs every file of the round before)`);
  return { shard, stage };
}

async function catalogueFlag(file: string | undefined): Promise<AgentsCatalogue | undefined> {
  if (file === undefined) return undefined;
  try {
    return await loadAgentsCatalogue(file);
  } catch (err) {
    throw new UsageError(`--agents-catalogue: ${(err as Error).message}`);
  }
}

function nowFlag(value: string | undefined): Date | undefined {
  const now = value === undefined ? undefined : new Date(value);
  if (now !== undefined && Number.isNaN(now.getTime())) throw new UsageError(`--now must be an ISO time, got ${JSON.stringify(value)}`);
  return now;
}

function runIdFlag(values: Values): string | undefined {
  const runId = values['run-id'];
  if (runId !== undefined && !/^[A-Za-z0-9_-]{1,80}$/.test(runId)) throw new UsageError(`--run-id must be a plain name of 1–80 letters, digits, '-' or '_', got ${JSON.stringify(runId)}`);
  if ((values.domains === '-' || values.apps === '-') && runId === undefined) throw new UsageError('a list read from stdin needs --run-id NAME (the run is recognised by it, and checked against the bytes read)');
  if (values.domains === '-' && values.apps === '-') throw new UsageError('only one of --domains and --apps can be stdin');
  return runId;
}

/** Runs `f`; any error it throws becomes a UsageError with the same message. */
function asUsage<T>(f: () => T): T {
  try {
    return f();
  } catch (err) {
    throw err instanceof UsageError ? err : new UsageError((err as Error).message);
  }
}
