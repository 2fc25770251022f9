import { parseBuyersBody } from './body-parsers.js';
import { buyersFileRow } from '../src/tables/rows.js';
import type { CrawlContext } from './context.js';
import { buyersContent, crawledFileRow, disallowedFileRow, NO_CONTENT } from './file-row.js';
import { obtainFile } from './obtain-file.js';
import { robotsAllows } from './robots-job.js';
import type { RobotsPolicy } from '../src/parse/robots/index.js';

/** buyers.json 1.0: at the root of the ad system's domain, like sellers.json. */
export function buyersUrl(adSystem: string): string {
  return `https://${adSystem}/buyers.json`;
}

/**
 * An ad system's buyers.json (IAB Tech Lab buyers.json 1.0, the demand side's counterpart of
 * sellers.json), asked once a night beside its sellers.json, with the sellers.json rules: the
 * same byte cap and deadline, statuses, validity, streaming into `buyers` rows, incremental
 * reuse, and the robots.txt verdict recorded (obeyed with --obey-robots all) under the policy the
 * sellers.json job read for the same host (`robots`: no second request). A 404 is `not_found`:
 * most ad systems publish none.
 */
export async function crawlBuyers(ctx: CrawlContext, adSystem: string, robots: RobotsPolicy): Promise<void> {
  const { out, stats } = ctx;
  const url = buyersUrl(adSystem);
  const robotsAllowed = robotsAllows(ctx, robots, '/buyers.json');
  const base = { subject: adSystem, fileKind: 'buyers.json', via: 'ad_system' as const, robotsAllowed };
  if (robotsAllowed === false && ctx.options.obeyRobots === 'all') {
    out.emit('files', disallowedFileRow(base));
    stats.countFile('buyers.json', 'disallowed_by_robots');
    return;
  }
  const got = await obtainFile(ctx, { url, kind: 'buyers.json', subject: adSystem, closeConnection: true }, (body, _meta, rows) => parseBuyersBody(rows, adSystem, body));
  const summary = got.body?.summary ?? null;
  const { row, status } = crawledFileRow(got, base, got.body ? buyersContent(got.body, got.file.truncated) : NO_CONTENT);
  out.emit('files', row);
  if (summary) out.emit('buyers_files', buyersFileRow(adSystem, status, summary));
  stats.countFile('buyers.json', status);
  await out.settle();
}
