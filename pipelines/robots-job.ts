import { checkPolicy, robotsPolicy, type RobotsHttpOutcome, type RobotsPolicy, type RobotsSemantics, type RobotsTxt } from '../src/parse/robots/index.js';
import { emitRobots, parseRobotsBody } from './body-parsers.js';
import { emitAgentRows, emitLicenses } from './robots-agents.js';
import type { LicenseLine } from '../src/parse/robots/index.js';
import type { Via } from '../src/tables/rows.js';
import type { CrawlContext } from './context.js';
import { crawledFileRow, robotsContent } from './file-row.js';
import { obtainFile } from './obtain-file.js';
import type { Referrals } from './referral-registry.js';

/**
 * Fetches and records one host's robots.txt (RFC 9309), returning the effective policy:
 * rules, allow-all (4xx, §2.3.1.3) or disallow-all (5xx / unreachable, §2.3.1.4).
 * Writes `files`, `fetches`, `robots_rules`, `robots_sitemaps`, `robots_verdicts`, `parse_issues`.
 * With `record` false (a host already recorded in this run) it only learns the policy.
 * `closeConnection`: robots.txt is the last request to this host (FetchRequest.closeConnection).
 */
export async function crawlRobots(ctx: CrawlContext, host: string, via: Via, record = true, closeConnection = false): Promise<RobotsPolicy> {
  return (await crawlRobotsFile(ctx, host, via, record, closeConnection)).policy;
}

/** crawlRobots, with the file's `License:` lines (RSL 1.0; none when not recorded). */
export async function crawlRobotsFile(ctx: CrawlContext, host: string, via: Via, record = true, closeConnection = false): Promise<{ policy: RobotsPolicy; licenses: LicenseLine[] }> {
  const parse = parseRobotsBody;
  if (!record) {
    const outcome = await ctx.fetcher.fetch({ url: `https://${host}/robots.txt`, kind: 'robots.txt', subject: host, signal: ctx.signal, closeConnection }, parse);
    return { policy: policyOf(outcome.status, outcome.error, outcome.body?.txt ?? null, false, ctx.options.robotsSemantics), licenses: [] };
  }
  const got = await obtainFile(ctx, { url: `https://${host}/robots.txt`, kind: 'robots.txt', subject: host, closeConnection }, parse);
  const { out, stats } = ctx;
  const txt: RobotsTxt | null = got.body?.txt ?? null;
  // file.httpStatus, not outcome.status: an earlier 404 reused without a request has no outcome.
  const policy = policyOf(got.file.httpStatus, got.outcome?.error ?? null, txt, got.obtained !== 'fetched', ctx.options.robotsSemantics);

  const rules = emitRobots(out, host, txt, policy, ctx.options.verdictAgents, ctx.options.verdictPaths, ctx.options.robotsSemantics);
  const usage = emitAgentRows(out, host, txt, policy, ctx.options.agents);
  const lic = emitLicenses(out, host, txt, got.file.url ?? `https://${host}/robots.txt`);
  const emitted = { rules, errors: usage.errors + lic.errors, warnings: usage.warnings + lic.warnings };
  const { row, status } = crawledFileRow(got, { subject: host, fileKind: 'robots.txt', via, robotsAllowed: null }, robotsContent(got.body, got.file.truncated, emitted), true);
  out.emit('files', row);
  stats.countFile('robots.txt', status);
  await out.settle();
  return { policy, licenses: lic.licenses };
}

/**
 * RFC 9309 §2.3.1: the policy an HTTP outcome leaves (rules, allow-all or disallow-all). A reused
 * earlier copy counts as a 2xx. The rules are read in `semantics` (docs/reference/robots-semantics.md).
 */
export function policyOf(status: number | null, error: string | null, txt: RobotsTxt | null, reused: boolean, semantics: RobotsSemantics = 'rfc'): RobotsPolicy {
  const outcome: RobotsHttpOutcome =
    reused && txt ? { kind: 'http', status: 200 }
    : error === 'redirect_limit' || error === 'redirect_loop' ? { kind: 'redirect_limit' }
    : status === null ? { kind: 'unreachable' }
    : { kind: 'http', status };
  return robotsPolicy(outcome, txt, { semantics });
}

/** The robots policy of a non-root host, recording its robots.txt the first time the run meets it. */
export function robotsFor(ctx: CrawlContext, referrals: Referrals, host: string, via: Via): Promise<RobotsPolicy> {
  return crawlRobots(ctx, host, via, referrals.claimRobots(host, ctx.out));
}

/** adsnap's own verdict for a path under a policy; null when robots.txt was not consulted. */
export function robotsAllows(ctx: CrawlContext, policy: RobotsPolicy | null, path: string): boolean | null {
  if (policy === null) return null;
  return checkPolicy(policy, ctx.options.productToken, path).allowed;
}
