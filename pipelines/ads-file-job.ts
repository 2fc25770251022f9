import { AdsTxtParser, type AdsFileKind, type AdsTxtSummary } from '../src/parse/adstxt/index.js';
import type { RobotsPolicy } from '../src/parse/robots/index.js';
import { adsFileStatus, statusFromFetch, type FileStatus } from '../src/resolve/file-status.js';
import { decideHops, type FileRole, type HopDecision } from '../src/resolve/referrals.js';
import { fileRow, hopRow, issueRow, type Via } from '../src/tables/rows.js';
import type { CrawlContext } from './context.js';
import { robotsAllows } from './robots-job.js';

export interface AdsFileRequest {
  subject: string;
  fileKind: AdsFileKind;
  via: Via;
  role: FileRole;
  /** Root domain (PSL+1) of the subject: the scope of subdomain= referrals. */
  root: string;
  robots: RobotsPolicy | null;
}

export interface AdsFileResult {
  status: FileStatus;
  /** A 2xx body that is an ads.txt-like file (not HTML, not an error page): the developer-URL search stops here. */
  found: boolean;
  summary: AdsTxtSummary | null;
  hops: HopDecision[];
}

/**
 * Fetches one ads.txt / app-ads.txt for a subject, streams its body through the parser straight
 * into the tables, and records the file, its issues and every referral it declares.
 */
export async function crawlAdsFile(ctx: CrawlContext, req: AdsFileRequest, adSystems: Set<string>): Promise<AdsFileResult> {
  const { out, stats } = ctx;
  const { subject, fileKind } = req;
  const robotsAllowed = robotsAllows(ctx, req.robots, `/${fileKind}`);
  // spec-decisions: fetched even where robots.txt disallows it, unless the operator asks for strictness.
  if (robotsAllowed === false && ctx.options.obeyRobots === 'all') {
    out.emit('files', fileRow({ subject, fileKind, via: req.via, url: null, status: 'disallowed_by_robots', httpStatus: null, valid: false, robotsAllowed }));
    stats.countFile(fileKind, 'disallowed_by_robots');
    return { status: 'disallowed_by_robots', found: false, summary: null, hops: [] };
  }

  let errors = 0;
  let warnings = 0;
  // Ad systems named by this file; they join the sellers.json phase unless the file is only the
  // placeholder record (§3.2.1: it authorizes nobody; placeholder.example.com has no sellers.json).
  const named = new Set<string>();
  const outcome = await ctx.fetcher.fetch({ url: `https://${subject}/${fileKind}`, kind: fileKind, subject, signal: ctx.signal }, async (body) => {
    const parser = new AdsTxtParser(
      {
        onRecord(r) {
          named.add(r.adSystemDomain);
          out.emit('ads_records', {
            subject,
            file_kind: fileKind,
            line_no: r.lineNo,
            ad_system_domain: r.adSystemDomain,
            seller_account_id: r.sellerAccountId,
            relationship: r.relationship,
            cert_authority_id: r.certAuthorityId,
            extension: r.extension,
          });
        },
        onVariable(v) {
          out.emit('ads_variables', { subject, file_kind: fileKind, line_no: v.lineNo, name: v.name, value: v.value, value_domain: v.valueDomain, value_country: v.valueCountry });
        },
        onIssue(i) {
          if (i.severity === 'error') errors++;
          else if (i.severity === 'warning') warnings++;
          out.emit('parse_issues', issueRow(subject, fileKind, i));
        },
      },
      { fileKind },
    );
    for await (const chunk of body) {
      parser.push(chunk);
      await out.settle(); // backpressure: wait for the writer before reading the next chunk
    }
    return parser.end();
  });
  out.fetches(outcome, stats);

  const summary = outcome.body;
  let status: FileStatus;
  let valid = false;
  const fetchStatus = statusFromFetch(outcome.status, outcome.error);
  if (fetchStatus !== null || summary === null) {
    status = fetchStatus ?? 'unreachable';
  } else {
    ({ status, valid } = adsFileStatus({
      parseStatus: summary.status,
      contentType: outcome.contentType,
      truncated: outcome.truncated,
      records: summary.records,
      variables: summary.variables,
    }));
  }
  out.emit(
    'files',
    fileRow({
      subject,
      fileKind,
      via: req.via,
      url: summary ? outcome.finalUrl : null,
      status,
      httpStatus: outcome.status,
      valid,
      robotsAllowed,
      records: summary?.records ?? 0,
      variables: summary?.variables ?? 0,
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
  stats.countFile(fileKind, status);
  if (status !== 'placeholder') for (const d of named) adSystems.add(d);

  // Referrals only from a body that is an ads.txt (an HTML page declares nothing).
  const usable = summary !== null && status !== 'html' && status !== 'too_large';
  const hops = usable
    ? decideHops({ subject, fileKind, role: req.role, root: req.root, subdomains: summary.subdomains, inventoryPartnerDomains: summary.inventoryPartnerDomains })
    : [];
  for (const h of hops) out.emit('hops', hopRow(subject, fileKind, h.kind, h.toSubject, h.outcome, h.reason, h.lineNo));
  await out.settle();
  return { status, found: usable, summary, hops };
}
