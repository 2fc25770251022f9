import type { ConsentFileKind } from '../src/parse/consent/index.js';
import type { LicenseLine, RobotsPolicy } from '../src/parse/robots/index.js';
import { parseConsentBody } from './consent-bodies.js';
import type { CrawlContext } from './context.js';
import { consentContent, crawledFileRow, disallowedFileRow, NO_CONTENT } from './file-row.js';
import { obtainFile } from './obtain-file.js';
import { emitPage, readPageHead, robotsMetaNames } from './page-head.js';
import { robotsAllows } from './robots-job.js';

/**
 * `crawl --ai-signals`: the consent files of one listed site (docs/reference/ai-signals.md) —
 * TDMRep's /.well-known/tdmrep.json, /llms.txt, and the RSL licence its robots.txt's first
 * `License:` line names when that is on the site's own host (a licence elsewhere is recorded in
 * robots_licenses but not fetched: another host is no subject of the snapshot). The same fetch
 * rules as every file: politeness, byte caps, outcomes, robots.txt verdict recorded (obeyed with
 * --obey-robots all), earlier copies as for any file. One `files` row per file asked. Last, the
 * home page `/`, read up to the end of its head (page-head.ts).
 */
export async function crawlAiSignals(ctx: CrawlContext, host: string, robots: RobotsPolicy, licenses: readonly LicenseLine[]): Promise<void> {
  await crawlConsentFile(ctx, host, 'tdmrep.json', `https://${host}/.well-known/tdmrep.json`, robots);
  await crawlConsentFile(ctx, host, 'llms.txt', `https://${host}/llms.txt`, robots);
  const licence = licenses.find((l) => l.sameHost && l.resolvedUrl !== null);
  if (licence) await crawlConsentFile(ctx, host, 'rsl', licence.resolvedUrl!, robots);
  await crawlHomePage(ctx, host, robots);
}

/**
 * `/`: its head and its answer's headers (docs/reference/ai-signals.md#the-home-page). The headers
 * are those of the night's last answer (its `fetches` row, which reparse reads too); a copy
 * reused without a request has none.
 */
async function crawlHomePage(ctx: CrawlContext, host: string, robots: RobotsPolicy): Promise<void> {
  const { out, stats } = ctx;
  const robotsAllowed = robotsAllows(ctx, robots, '/');
  const who = { subject: host, fileKind: 'home_page', via: 'root' as const, robotsAllowed };
  if (robotsAllowed === false && ctx.options.obeyRobots === 'all') {
    out.emit('files', disallowedFileRow(who));
    stats.countFile('home_page', 'disallowed_by_robots');
    return;
  }
  const names = robotsMetaNames(ctx.options.agents);
  const got = await obtainFile(ctx, { url: `https://${host}/`, kind: 'home_page', subject: host }, (body) => readPageHead(body, names));
  let content = NO_CONTENT;
  if (got.body) {
    const read = emitPage(out, host, got.file.url, got.body.end(got.file.truncated), got.outcome?.rows.at(-1) ?? null);
    content = { ...NO_CONTENT, verdict: read.verdict, records: read.directives, ...read.counts };
  }
  const { row, status } = crawledFileRow(got, who, content);
  out.emit('files', row);
  stats.countFile('home_page', status);
  await out.settle();
}

async function crawlConsentFile(ctx: CrawlContext, host: string, kind: ConsentFileKind, url: string, robots: RobotsPolicy): Promise<void> {
  const { out, stats } = ctx;
  const at = new URL(url);
  const robotsAllowed = robotsAllows(ctx, robots, at.pathname + at.search);
  if (robotsAllowed === false && ctx.options.obeyRobots === 'all') {
    out.emit('files', disallowedFileRow({ subject: host, fileKind: kind, via: 'root', robotsAllowed }));
    stats.countFile(kind, 'disallowed_by_robots');
    return;
  }
  const got = await obtainFile(ctx, { url, kind, subject: host }, (body, meta, rows) => parseConsentBody(rows, host, kind, meta?.finalUrl ?? url, body));
  const { row, status } = crawledFileRow(got, { subject: host, fileKind: kind, via: 'root', robotsAllowed }, got.body ? consentContent(got.body, got.file.truncated) : NO_CONTENT);
  out.emit('files', row);
  stats.countFile(kind, status);
  await out.settle();
}
