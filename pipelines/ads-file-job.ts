import type { AdsFileKind, AdsTxtSummary } from '../src/parse/adstxt/index.js';
import { parseAdsBody } from './body-parsers.js';
import type { RobotsPolicy } from '../src/parse/robots/index.js';
import type { FileStatus } from '../src/resolve/file-status.js';
import { decideHops, type FileRole, type HopDecision } from '../src/resolve/referrals.js';
import { hopRow, type Via } from '../src/tables/rows.js';
import type { CrawlContext } from './context.js';
import type { Referrals } from './referral-registry.js';
import { adsContent, crawledFileRow, disallowedFileRow, NO_CONTENT } from './file-row.js';
import { obtainFile } from './obtain-file.js';
import { robotsAllows } from './robots-job.js';
import type { PreviousFile } from '../src/store/previous-snapshot.js';

export interface AdsFileRequest {
  subject: string;
  fileKind: AdsFileKind;
  via: Via;
  role: FileRole;
  /** Root domain (PSL+1) of the subject: the scope of subdomain= referrals. */
  root: string;
  robots: RobotsPolicy | null;
  /** The earlier snapshot's entry, when the caller already looked it up (previousOf). */
  previous?: PreviousFile | null;
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
export async function crawlAdsFile(ctx: CrawlContext, req: AdsFileRequest, referrals: Referrals): Promise<AdsFileResult> {
  const { out, stats } = ctx;
  const { subject, fileKind } = req;
  const robotsAllowed = robotsAllows(ctx, req.robots, `/${fileKind}`);
  // spec-decisions: fetched even where robots.txt disallows it, unless the operator asks for strictness.
  if (robotsAllowed === false && ctx.options.obeyRobots === 'all') {
    out.emit('files', disallowedFileRow({ subject, fileKind, via: req.via, robotsAllowed }));
    stats.countFile(fileKind, 'disallowed_by_robots');
    return { status: 'disallowed_by_robots', found: false, summary: null, hops: [] };
  }

  // Ad systems named by this file; they join the sellers.json phase unless the file is only the
  // placeholder record (§3.2.1: it authorizes nobody; placeholder.example.com has no sellers.json).
  // (Per reading of a body: only the body the file row describes names anything.)
  let named = new Set<string>();
  // The file is the last request of this job to its host (robots.txt came first): close it after.
  const got = await obtainFile(ctx, { url: `https://${subject}/${fileKind}`, kind: fileKind, subject, closeConnection: true, previous: req.previous }, (body, _meta, rows) => {
    named = new Set<string>();
    return parseAdsBody(rows, subject, fileKind, body, named);
  });
  const summary = got.body?.summary ?? null;
  const { row, status } = crawledFileRow(got, { subject, fileKind, via: req.via, robotsAllowed }, got.body ? adsContent(got.body, got.file.contentType, got.file.truncated) : NO_CONTENT);
  out.emit('files', row);
  stats.countFile(fileKind, status);
  // Only a body read to its end names anyone (a failed reading's records are gone with it).
  if (summary !== null && status !== 'placeholder') for (const d of named) referrals.addAdSystem(d, out);

  // Referrals only from a body that is an ads.txt (an HTML page declares nothing).
  const usable = summary !== null && summary.status !== 'html' && !got.file.truncated;
  const hops = usable
    ? decideHops({ subject, fileKind, role: req.role, root: req.root, subdomains: summary.subdomains, inventoryPartnerDomains: summary.inventoryPartnerDomains })
    : [];
  for (const h of hops) out.emit('hops', hopRow(subject, fileKind, h.kind, h.toSubject, h.outcome, h.reason, h.lineNo));
  await out.settle();
  return { status, found: usable, summary, hops };
}
