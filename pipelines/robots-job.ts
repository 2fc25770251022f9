import { checkPolicy, RobotsMatcher, RobotsParser, robotsAccess, verdicts, type RobotsPolicy, type RobotsTxt } from '../src/parse/robots/index.js';
import { statusFromFetch } from '../src/resolve/file-status.js';
import { fileRow, issueRow, type Via } from '../src/tables/rows.js';
import type { FetchOutcome } from '../src/fetch/index.js';
import type { CrawlContext } from './context.js';
import type { Referrals } from './referral-registry.js';

/**
 * Fetches and records one host's robots.txt (RFC 9309), returning the effective policy:
 * rules, allow-all (4xx, §2.3.1.3) or disallow-all (5xx / unreachable, §2.3.1.4).
 * Writes `files`, `fetches`, `robots_rules`, `robots_sitemaps`, `robots_verdicts`, `parse_issues`.
 */
export async function crawlRobots(ctx: CrawlContext, host: string, via: Via, record = true): Promise<RobotsPolicy> {
  const { stats } = ctx;
  // A host already recorded in this run is fetched again only for its policy; nothing is written.
  const out = record ? ctx.out : null;
  const outcome = await ctx.fetcher.fetch({ url: `https://${host}/robots.txt`, kind: 'robots.txt', subject: host, signal: ctx.signal }, async (body) => {
    const parser = new RobotsParser();
    for await (const chunk of body) parser.push(chunk);
    return parser.end();
  });
  if (!out) return policyOf(outcome);
  out.fetches(outcome, stats);

  const txt: RobotsTxt | null = outcome.body;
  const policy = policyOf(outcome);

  let rules = 0;
  if (txt) {
    for (const g of txt.groups) {
      for (const ua of g.userAgents) {
        for (const r of g.rules) {
          out.emit('robots_rules', { host, group_no: g.groupNo, user_agent: ua, directive: r.directive, path: r.path, line_no: r.lineNo });
          rules++;
        }
      }
    }
    for (const s of txt.sitemaps) out.emit('robots_sitemaps', { host, url: s.url, line_no: s.lineNo });
    for (const i of txt.issues) out.emit('parse_issues', issueRow(host, 'robots.txt', i));
  }
  for (const v of verdicts(policy, ctx.options.verdictAgents, ctx.options.verdictPaths)) {
    out.emit('robots_verdicts', { host, user_agent: v.userAgent, path: v.path, allowed: v.allowed, matched_line: v.matchedLine, policy: v.policy });
  }

  const status = statusFromFetch(outcome.status, outcome.error) ?? (outcome.truncated ? 'too_large' : 'ok');
  const errors = txt ? txt.issues.filter((i) => i.severity === 'error').length : 0;
  const warnings = txt ? txt.issues.filter((i) => i.severity === 'warning').length : 0;
  out.emit(
    'files',
    fileRow({
      subject: host,
      fileKind: 'robots.txt',
      via,
      url: txt ? outcome.finalUrl : null,
      status,
      httpStatus: outcome.status,
      // RFC 9309 §2.3.1: a parsed 2xx body is a usable robots.txt (a truncated one keeps its first 500 KiB).
      valid: txt !== null,
      robotsAllowed: null,
      records: rules,
      variables: txt ? txt.sitemaps.length + txt.others.length : 0,
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
  stats.countFile('robots.txt', status);
  await out.settle();
  return policy;
}

/** RFC 9309 §2.3.1: the policy an HTTP outcome leaves (rules, allow-all or disallow-all). */
function policyOf(outcome: FetchOutcome<RobotsTxt>): RobotsPolicy {
  const txt = outcome.body;
  if (outcome.status !== null && outcome.status >= 200 && outcome.status < 300 && txt) return { kind: 'rules', matcher: RobotsMatcher.compile(txt) };
  const access =
    outcome.error === 'redirect_limit' || outcome.error === 'redirect_loop'
      ? robotsAccess({ kind: 'redirect_limit' })
      : outcome.status === null
        ? robotsAccess({ kind: 'unreachable' })
        : robotsAccess({ kind: 'http', status: outcome.status });
  return access === 'allow_all' ? { kind: 'allow_all' } : { kind: 'disallow_all' };
}

/** The robots policy of a non-root host, recording its robots.txt the first time the run meets it. */
export function robotsFor(ctx: CrawlContext, referrals: Referrals, host: string, via: Via): Promise<RobotsPolicy> {
  return crawlRobots(ctx, host, via, referrals.claimRobots(host));
}

/** adsnap's own verdict for a path under a policy; null when robots.txt was not consulted. */
export function robotsAllows(ctx: CrawlContext, policy: RobotsPolicy | null, path: string): boolean | null {
  if (policy === null) return null;
  return checkPolicy(policy, ctx.options.productToken, path).allowed;
}
