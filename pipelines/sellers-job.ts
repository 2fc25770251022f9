import { parseSellersBody } from './body-parsers.js';
import type { SellersSummary } from '../src/parse/sellers/index.js';
import { sellersFileRow } from '../src/tables/rows.js';
import type { CrawlContext, RowScope } from './context.js';
import type { Referrals } from './referral-registry.js';
import { attemptContext, settleAttempts } from './location-attempts.js';
import { crawledFileRow, disallowedFileRow, NO_CONTENT, sellersContent } from './file-row.js';
import { obtainFile, previousOf, type Obtained } from './obtain-file.js';
import { crawlRobots, robotsAllows, robotsFor } from './robots-job.js';
import type { RobotsPolicy } from '../src/parse/robots/index.js';

export interface SellersRequest {
  /** The ad system (round 0) or intermediary domain the file belongs to: files.subject, sellers.ad_system_domain. */
  domain: string;
  /** Where it is asked for, in order (SellersLocations.candidatesFor: the spec's location, then the locations table's). */
  urls: readonly string[];
  /** 'ad_system' in round 0, 'intermediary' in later rounds. */
  via: 'ad_system' | 'intermediary';
}

type Parsed = { summary: SellersSummary; counts: { errors: number; warnings: number } };

/** One place asked: its robots verdict, what it gave (null: robots.txt forbade asking), and its rows. */
interface Attempt {
  url: string;
  /** 0: the spec's location; 1…: the locations table's entries. */
  index: number;
  robotsAllowed: boolean | null;
  /** The asked host's robots.txt policy. */
  robots: RobotsPolicy;
  got: Obtained<Parsed> | null;
  named: Set<string>;
  rows: RowScope;
}

/**
 * One sellers.json (IAB sellers.json 1.0), streamed from the body into `sellers` rows: never the
 * whole document in memory (real files exceed 100 MB). Asked at the spec's location first
 * (redirects followed), then at each location the table lists for the ad system, until one gives
 * a readable file (a `sellers` array read with entries); the `files` row describes that one, or,
 * when none is readable, the spec's location. `sellers_files.location` says which served it.
 * Fetched even where robots.txt disallows it, as ad platforms do, unless --obey-robots all; the
 * verdict is recorded. The domains its INTERMEDIARY/BOTH entries name join the next round when
 * the unit commits (`Referrals`). Returns the robots.txt policy of the ad system's own host (the
 * spec's location's), which its buyers.json is asked under without a second request.
 */
export async function crawlSellers(ctx: CrawlContext, referrals: Referrals, req: SellersRequest): Promise<RobotsPolicy> {
  const { out, stats } = ctx;
  const { domain, via } = req;
  const attempts: Attempt[] = [];
  for (const [index, url] of req.urls.entries()) {
    const a = await attempt(ctx, referrals, req, url, index);
    attempts.push(a);
    if (readable(a)) break;
  }
  const chosen = attempts.find(readable) ?? attempts[0]!;
  settleAttempts(attempts, chosen);
  const { got, robotsAllowed } = chosen;
  if (got === null) {
    out.emit('files', disallowedFileRow({ subject: domain, fileKind: 'sellers.json', via, robotsAllowed }));
    stats.countFile('sellers.json', 'disallowed_by_robots');
    return attempts[0]!.robots;
  }
  const summary = got.body?.summary ?? null;
  const { row, status } = crawledFileRow(got, { subject: domain, fileKind: 'sellers.json', via, robotsAllowed }, got.body ? sellersContent(got.body, got.file.truncated) : NO_CONTENT);
  out.emit('files', row);
  // The header of the body the files row describes (none when no body was read whole), and where it was asked.
  if (summary) out.emit('sellers_files', sellersFileRow(domain, status, summary, { location: chosen.index === 0 ? 'spec' : 'table', url: chosen.url }));
  // The entries of the body whose rows are kept name the next round (the same rows seller_reach walks).
  if (summary) for (const d of chosen.named) referrals.addIntermediary(d, out);
  stats.countFile('sellers.json', status);
  stats.sellersDone++;
  await out.settle();
  return attempts[0]!.robots;
}

/** A sellers array was read, with entries: the places after this one are not asked. */
function readable(a: Attempt): boolean {
  return a.got !== null && a.got.file.fetchStatus === null && a.got.body?.summary.status === 'ok';
}

async function attempt(ctx: CrawlContext, referrals: Referrals, req: SellersRequest, url: string, index: number): Promise<Attempt> {
  const { domain, via } = req;
  const at = new URL(url);
  const rows = ctx.out.begin();
  // robots.txt of the host asked. A file published on another host (the locations table) is
  // consulted there, but not recorded as a file of its own: that host is no subject of the
  // snapshot (and in a sharded run no single shard owns it).
  const robots = at.hostname === domain ? await robotsFor(ctx, referrals, domain, via) : await crawlRobots(ctx, at.hostname, via, false);
  const robotsAllowed = robotsAllows(ctx, robots, at.pathname + at.search);
  const a: Attempt = { url, index, robotsAllowed, robots, got: null, named: new Set(), rows };
  if (robotsAllowed === false && ctx.options.obeyRobots === 'all') return a;
  // The earlier night's copy counts for the place it came from (a 404 there says nothing of another).
  let previous = await previousOf(ctx, domain, 'sellers.json');
  if (previous && !(previous.url === url || (previous.url === null && index === 0))) previous = null;
  a.got = await obtainFile(attemptContext(ctx, rows), { url, kind: 'sellers.json', subject: domain, closeConnection: true, previous }, (body, _meta, scope) => {
    // Per reading of a body: only the body the files row describes names anyone.
    a.named = new Set<string>();
    return parseSellersBody(scope, domain, body, a.named);
  });
  return a;
}
