import { SellersJsonParser } from '../src/parse/sellers/index.js';
import { statusFromFetch, type FileStatus } from '../src/resolve/file-status.js';
import { fileRow, issueRow } from '../src/tables/rows.js';
import type { CrawlContext } from './context.js';
import type { Referrals } from './referral-registry.js';
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
    out.emit('files', fileRow({ subject: domain, fileKind: 'sellers.json', via: 'ad_system', url: null, status: 'disallowed_by_robots', httpStatus: null, valid: false, robotsAllowed }));
    stats.countFile('sellers.json', 'disallowed_by_robots');
    return;
  }
  let errors = 0;
  let warnings = 0;
  const outcome = await ctx.fetcher.fetch({ url: `https://${domain}/sellers.json`, kind: 'sellers.json', subject: domain, signal: ctx.signal }, async (body) => {
    const parser = new SellersJsonParser({
      onSeller(s) {
        out.emit('sellers', {
          ad_system_domain: domain,
          seller_id: s.sellerId,
          seller_type: s.sellerType,
          name: s.name,
          domain: s.domain,
          is_confidential: s.isConfidential,
          is_passthrough: s.isPassthrough,
          comment: s.comment,
        });
      },
      onIssue(i) {
        if (i.severity === 'error') errors++;
        else if (i.severity === 'warning') warnings++;
        out.emit('parse_issues', issueRow(domain, 'sellers.json', i));
      },
    });
    for await (const chunk of body) {
      parser.push(chunk);
      await out.settle();
    }
    return parser.end();
  });
  out.fetches(outcome, stats);

  const summary = outcome.body;
  const fetchStatus = statusFromFetch(outcome.status, outcome.error);
  // sellers.json adds two statuses of its own: 'invalid_json' and 'not_sellers_json' (README).
  const status: FileStatus | 'invalid_json' | 'not_sellers_json' =
    fetchStatus ?? (summary === null ? 'unreachable' : outcome.truncated ? 'too_large' : summary.status);
  out.emit(
    'files',
    fileRow({
      subject: domain,
      fileKind: 'sellers.json',
      via: 'ad_system',
      url: summary ? outcome.finalUrl : null,
      status: status as FileStatus,
      httpStatus: outcome.status,
      valid: status === 'ok',
      robotsAllowed,
      records: summary?.sellers ?? 0,
      variables: 0,
      errors,
      warnings,
      bytes: outcome.bytes,
      sha256: outcome.sha256,
      contentType: outcome.contentType,
      fetchedAt: outcome.rows[0]?.started_at ?? null,
      etag: outcome.etag,
      lastModified: outcome.lastModified,
    }),
  );
  stats.countFile('sellers.json', status);
  stats.sellersDone++;
  await out.settle();
}
