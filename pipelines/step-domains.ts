/**
 * Stage 'targets', the listed sites: every site this machine owns, crawled (domain-job.ts). A
 * run past this phase (a later stage, a resume) still reads the list, for its roots.
 */
import { openLineBatches } from '../src/sources/line-reader.js';
import { readDomainList } from '../src/sources/domain-list.js';
import type { Shard } from '../src/util/shard.js';
import { EmptyListError } from './crawl-options.js';
import type { CrawlRun } from './crawl-run.js';
import { crawlDomain } from './domain-job.js';
import { filter } from '../src/util/async-filter.js';

export async function crawlDomains(run: CrawlRun, crawlThem: boolean): Promise<void> {
  const { options, referrals, stats } = run;
  const input = run.setup.inputs.domains;
  if (input === null) return;
  stats.phase = 'domains';
  void estimateTotal(input, options.limit, run.setup.shard).then((n) => (stats.targetsTotal = n));
  // Every listed root is known to the registry (also those done before a resume, and those
  // of other shards), so that partners that are listed roots are not fetched twice. The
  // reader de-duplicates the list with that same set: one copy of the roots, not two.
  const src = readDomainList(input, { limit: options.limit, zipEntry: options.zipEntry, seen: referrals.roots, sourceName: options.domainsSource ?? (options.domains === '-' ? 'stdin' : undefined) });
  const list = (run.list = src.stats);
  if (crawlThem) {
    await run.pool('domains', filter(src.targets, (t) => run.owns(t.target)), (c, t) => crawlDomain(c, t, referrals));
  } else {
    for await (const _ of src.targets); // only rebuild the roots
  }
  if (list.accepted === 0 && !options.allowEmpty) throw new EmptyListError(`the domain list ${options.domains} has no accepted entry (${list.lines} lines, ${list.malformed} malformed); nothing was committed (--allow-empty commits an empty snapshot)`);
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
