/**
 * The listed sites: every site this machine owns, crawled (domain-job.ts). A run that does not
 * run this step (a later stage, a resume past it) still reads the list, for its roots.
 */
import { openLineBatches } from '../src/sources/line-reader.js';
import { readDomainList, type ListStats, type TargetInput } from '../src/sources/domain-list.js';
import { EmptyListError, type CrawlOptions } from './crawl-options.js';
import type { UnitPool } from './context.js';
import { crawlDomain } from './domain-job.js';
import { crawlPartner, earlyPartners, type PartnersSlice } from './step-partners.js';
import type { Referrals } from './referral-registry.js';
import type { RunStats } from './run-stats.js';
import { filter } from '../src/util/async-filter.js';

/** What the listed-sites step reads and writes of the run. */
export interface DomainsSlice {
  /** The list to read (a file, or stdin's copy in the staging folder), or null: no domain list. */
  input: string | null;
  options: Pick<CrawlOptions, 'domains' | 'domainsSource' | 'limit' | 'zipEntry' | 'allowEmpty'>;
  /** Sharded runs: how many shards share the list (the progress line's estimate). */
  shardCount: number | null;
  referrals: Referrals;
  stats: RunStats;
  owns: (host: string) => boolean;
  pool: UnitPool;
  /** What the list reader counted, for the manifest. */
  setList: (stats: ListStats) => void;
  /**
   * The saved state in which the partners known when the list runs out are fixed, to be crawled
   * by this step (a run of one machine with no app list: step-partners.ts earlyPartners), or
   * null: all go to the partner phase.
   */
  earlyPartnersState: PartnersSlice['state'] | null;
}

export async function crawlDomains(s: DomainsSlice): Promise<void> {
  if (s.input === null) return;
  void estimateTotal(s.input, s.options.limit, s.shardCount).then((n) => (s.stats.targetsTotal = n));
  // The listed sites, then (earlyPartners) the partners known once the list has run out, in one
  // pool: the partners go beside the last sites (their 503s waited out, their slowest hosts)
  // instead of after them. The roots in flight keep their subdomains' first claim: those whose
  // unit runs, and the last one handed out, whose unit may not have started yet.
  const state = s.earlyPartnersState;
  const inFlight = new Set<string>();
  const partners = (last: string | null) =>
    state === null ? [] : earlyPartners({ state, referrals: s.referrals, owns: s.owns }, last === null ? inFlight : new Set([...inFlight, last]));
  await readList(s, s.input, (targets) =>
    s.pool(sitesThenPartners(filter(targets, (t) => s.owns(t.target)), partners), async (c, unit) => {
      if (unit.partner !== undefined) return crawlPartner(c, s.referrals, unit.partner);
      inFlight.add(unit.site.target);
      try {
        await crawlDomain(c, unit.site, s.referrals);
      } finally {
        inFlight.delete(unit.site.target);
      }
    }),
  );
}

type SiteOrPartner = { site: TargetInput; partner?: undefined } | { partner: string; site?: undefined };

/** The listed sites, then the partners `partners(the last site handed out)` gives when the list has run out. */
async function* sitesThenPartners(sites: AsyncIterable<TargetInput>, partners: (last: string | null) => readonly string[]): AsyncGenerator<SiteOrPartner> {
  let last: string | null = null;
  for await (const site of sites) {
    last = site.target;
    yield { site };
  }
  for (const partner of partners(last)) yield { partner };
}

/** Only the roots: the list read again, nothing crawled. */
export async function readRoots(s: DomainsSlice): Promise<void> {
  if (s.input === null) return;
  await readList(s, s.input, async (targets) => {
    for await (const _ of targets); // only rebuild the roots
  });
}

async function readList(s: DomainsSlice, input: string, use: (targets: ReturnType<typeof readDomainList>['targets']) => Promise<void>): Promise<void> {
  const { options } = s;
  // Every listed root is known to the registry (also those done before a resume, and those
  // of other shards), so that partners that are listed roots are not fetched twice. The
  // reader de-duplicates the list with that same set: one copy of the roots, not two.
  const src = readDomainList(input, { limit: options.limit, zipEntry: options.zipEntry, seen: s.referrals.roots, sourceName: options.domainsSource ?? (options.domains === '-' ? 'stdin' : undefined) });
  const list = src.stats;
  s.setList(list);
  await use(src.targets);
  if (list.accepted === 0 && !options.allowEmpty) throw new EmptyListError(`the domain list ${options.domains} has no accepted entry (${list.lines} lines, ${list.malformed} malformed); nothing was committed (--allow-empty commits an empty snapshot)`);
}

/**
 * Roughly how many targets this run will crawl, for the progress display's ETA: the list's
 * non-blank lines (a second, cheap read), capped by --limit, divided among shards. Null when the
 * list cannot be read ahead (the crawl itself reports that error).
 */
async function estimateTotal(input: string, limit: number | undefined, shards: number | null): Promise<number | null> {
  try {
    let n = 0;
    for await (const batch of openLineBatches(input)) for (const l of batch) if (l.line.trim() !== '') n++;
    const capped = Math.min(n, limit ?? Infinity);
    return shards ? Math.round(capped / shards) : capped;
  } catch {
    return null;
  }
}
