import { parseSellersBody } from './body-parsers.js';
import { sellersFileStatus } from '../src/resolve/file-status.js';
import { fileRow, sellersFileRow } from '../src/tables/rows.js';
import type { CrawlContext } from './context.js';
import type { Referrals } from './referral-registry.js';
import { bodyColumns, obtainFile, previousOf } from './obtain-file.js';
import { crawlRobots, robotsAllows, robotsFor } from './robots-job.js';

export interface SellersRequest {
  /** The ad system (round 0) or intermediary domain the file belongs to: files.subject, sellers.ad_system_domain. */
  domain: string;
  /** Where it is asked for (SellersLocations.urlFor: the spec's default, or the locations table's). */
  url: string;
  /** 'ad_system' in round 0, 'intermediary' in later rounds. */
  via: 'ad_system' | 'intermediary';
}

/**
 * One sellers.json (IAB sellers.json 1.0), streamed from the body into `sellers` rows: never the
 * whole document in memory (real files exceed 100 MB). Fetched even where robots.txt disallows it,
 * as ad platforms do, unless --obey-robots all; the verdict is recorded. The domains its
 * INTERMEDIARY/BOTH entries name join the next round when the unit commits (`Referrals`).
 */
export async function crawlSellers(ctx: CrawlContext, referrals: Referrals, req: SellersRequest): Promise<void> {
  const { out, stats } = ctx;
  const { domain, url, via } = req;
  const at = new URL(url);
  // robots.txt of the host asked. A file published on another host (the locations table) is
  // consulted there, but not recorded as a file of its own: that host is no subject of the
  // snapshot (and in a sharded run no single shard owns it).
  const robots = at.hostname === domain ? await robotsFor(ctx, referrals, domain, via) : await crawlRobots(ctx, at.hostname, via, false);
  const robotsAllowed = robotsAllows(ctx, robots, at.pathname + at.search);
  if (robotsAllowed === false && ctx.options.obeyRobots === 'all') {
    out.emit('files', fileRow({ subject: domain, fileKind: 'sellers.json', via, url: null, status: 'disallowed_by_robots', obtained: null, httpStatus: null, valid: false, robotsAllowed }));
    stats.countFile('sellers.json', 'disallowed_by_robots');
    return;
  }
  // An earlier 404 says nothing about a location the table added since: ask there.
  let previous = await previousOf(ctx, domain, 'sellers.json');
  if (previous?.status === 'not_found' && url !== `https://${domain}/sellers.json`) previous = null;
  // Per reading of a body: only the body the files row describes names anyone.
  let named = new Set<string>();
  const got = await obtainFile(ctx, { url, kind: 'sellers.json', subject: domain, closeConnection: true, previous }, (body, _meta, rows) => {
    named = new Set<string>();
    return parseSellersBody(rows, domain, body, named);
  });
  const { errors, warnings } = got.body?.counts ?? { errors: 0, warnings: 0 };
  const summary = got.body?.summary ?? null;
  // What the content is, however it was obtained (fetched, revalidated, reused, carried forward).
  const { status, valid } =
    got.file.fetchStatus !== null || summary === null
      ? { status: got.file.fetchStatus ?? ('unreachable' as const), valid: false }
      : sellersFileStatus({ parseStatus: summary.status, truncated: got.file.truncated });
  out.emit(
    'files',
    fileRow({
      subject: domain,
      fileKind: 'sellers.json',
      via,
      url: summary ? got.file.url : null,
      status,
      httpStatus: got.file.httpStatus,
      valid,
      robotsAllowed,
      records: summary?.sellers ?? 0,
      variables: 0,
      errors,
      warnings,
      ...bodyColumns(got),
    }),
  );
  // The header of the body the files row describes (none when no body was read whole).
  if (summary) out.emit('sellers_files', sellersFileRow(domain, status, summary));
  // The entries of the body whose rows are kept name the next round (the same rows seller_reach walks).
  if (summary) for (const d of named) referrals.addIntermediary(d, out);
  stats.countFile('sellers.json', status);
  stats.sellersDone++;
  await out.settle();
}
