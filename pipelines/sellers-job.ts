import { parseSellersBody } from './body-parsers.js';
import { sellersFileStatus } from '../src/resolve/file-status.js';
import { fileRow, sellersFileRow } from '../src/tables/rows.js';
import type { CrawlContext } from './context.js';
import type { Referrals } from './referral-registry.js';
import { bodyColumns, obtainFile } from './obtain-file.js';
import { robotsAllows, robotsFor } from './robots-job.js';

/**
 * One ad system's sellers.json (IAB sellers.json 1.0), streamed from the body into `sellers`
 * rows: never the whole document in memory (real files exceed 100 MB). Fetched even where
 * robots.txt disallows it, as ad platforms do, unless --obey-robots all; the verdict is recorded.
 */
export async function crawlSellers(ctx: CrawlContext, referrals: Referrals, domain: string): Promise<void> {
  const { out, stats } = ctx;
  const robots = await robotsFor(ctx, referrals, domain, 'ad_system');
  const robotsAllowed = robotsAllows(ctx, robots, '/sellers.json');
  if (robotsAllowed === false && ctx.options.obeyRobots === 'all') {
    out.emit('files', fileRow({ subject: domain, fileKind: 'sellers.json', via: 'ad_system', url: null, status: 'disallowed_by_robots', obtained: null, httpStatus: null, valid: false, robotsAllowed }));
    stats.countFile('sellers.json', 'disallowed_by_robots');
    return;
  }
  const got = await obtainFile(ctx, { url: `https://${domain}/sellers.json`, kind: 'sellers.json', subject: domain, closeConnection: true }, (body, _meta, rows) => parseSellersBody(rows, domain, body));
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
      via: 'ad_system',
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
  stats.countFile('sellers.json', status);
  stats.sellersDone++;
  await out.settle();
}
