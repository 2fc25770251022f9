import { consentIssue, type ConsentIssue } from '../src/parse/consent/issue-codes.js';
import { PageHeadReader, type PageHead } from '../src/parse/consent/page-head.js';
import { contentUsageDirectives, licenseLinks, metaDirectives, xRobotsDirectives, type PageDirective } from '../src/parse/consent/page-signals.js';
import type { ContentVerdict } from '../src/resolve/file-status.js';
import type { Row } from '../schemas/tables.js';
import { emitIssueRows, type IssueCounts } from './body-parsers.js';
import type { Rows } from './context.js';
import { withContent, NO_CONTENT } from './file-row.js';
import type { SnapshotDb } from '../src/sql/snapshot-db.js';

/**
 * From a home page's head and its answer's headers to `page_heads`, `page_directives` and their
 * `parse_issues` (docs/reference/ai-signals.md#the-home-page). The one place both the crawl
 * (ai-signals-job.ts) and `adsnap reparse` read a home page: the head from the body (kept in the
 * body store as far as it was read), the headers from the `fetches` row of the answer used (the
 * crawl's outcome row; reparse's copied `fetches` table), so a re-read night says what the crawl did.
 */

/** The answer's headers as the `fetches` row keeps them. */
export type PageAnswer = Pick<Row<'fetches'>, 'x_robots_tag' | 'content_usage' | 'link' | 'tdm_reservation' | 'tdm_policy'>;

/** Meta names read as robots tags for one agent, beside `robots`: the catalogue's tokens and the search engines' own. */
export function robotsMetaNames(agents: readonly string[]): Set<string> {
  return new Set(['googlebot', 'googlebot-news', 'bingbot', ...agents.map((a) => a.toLowerCase())]);
}

/**
 * Reads the body up to the end of its head, and stops (the fetch layer then aborts the transfer).
 * The reader is returned unended: whether the head was cut is known only after the fetch (`end(truncated)`).
 */
export async function readPageHead(body: AsyncIterable<Uint8Array>, names: ReadonlySet<string>): Promise<PageHeadReader> {
  const reader = new PageHeadReader(names);
  for await (const chunk of body) if (reader.push(chunk)) break;
  return reader;
}

export interface ParsedPage {
  verdict: ContentVerdict;
  directives: number;
  counts: IssueCounts;
}

/** page_heads / page_directives / parse_issues of one home page; `url`: where the head was read from. */
export function emitPage(out: Rows, host: string, url: string | null, head: PageHead, answer: PageAnswer | null): ParsedPage {
  const directives: PageDirective[] = head.robots.flatMap((r) => metaDirectives(r.agent, r.content));
  directives.push(...xRobotsDirectives(answer?.x_robots_tag ?? []));
  const issues: ConsentIssue[] = [];
  if (answer?.content_usage != null) {
    const usage = contentUsageDirectives(answer.content_usage);
    if (usage) directives.push(...usage);
    else issues.push(consentIssue('PAGE_CONTENT_USAGE_INVALID', `Content-Usage ${JSON.stringify(answer.content_usage.slice(0, 120))} is not a dictionary; ignored`));
  }
  if (head.end === 'cut') issues.push(consentIssue('PAGE_HEAD_CUT', 'the head was still open at the byte cap; the rest was not read'));
  if (head.end === 'unclosed') issues.push(consentIssue('PAGE_HEAD_UNCLOSED', 'the page ended with its head still open'));
  directives.forEach((d, i) => out.emit('page_directives', { host, no: i + 1, source: d.source, user_agent: d.userAgent, directive: d.directive, value: d.value }));
  const says = (word: string): boolean | null => {
    if (directives.some((d) => d.source !== 'content-usage' && d.userAgent === '*' && d.directive === word)) return true;
    return head.end === 'cut' ? null : false;
  };
  const tdmMeta = head.tdmReservation !== null;
  const tdmHeader = answer?.tdm_reservation ?? null;
  const licence = rslLicence(url, head, answer);
  out.emit('page_heads', {
    host,
    url,
    head: head.end,
    noai: says('noai'),
    noimageai: says('noimageai'),
    content_usage: answer?.content_usage ?? null,
    tdm_reservation: tdmMeta ? head.tdmReservation : tdmHeader,
    tdm_policy: tdmMeta ? head.tdmPolicy : tdmHeader !== null ? (answer?.tdm_policy ?? null) : null,
    tdm_from: tdmMeta ? 'meta' : tdmHeader !== null ? 'header' : null,
    rsl_license_url: licence?.url ?? null,
    rsl_license_from: licence?.from ?? null,
    directives: directives.length,
  });
  const counts = emitIssueRows(out, host, 'home_page', issues);
  const verdict: ContentVerdict = head.end === 'cut' ? { status: 'too_large', valid: false } : { status: 'ok', valid: true };
  return { verdict, directives: directives.length, counts };
}

/** The head's first RSL link, else the Link header's: resolved against the page URL (RSL 1.0). */
function rslLicence(url: string | null, head: PageHead, answer: PageAnswer | null): { url: string | null; from: 'link' | 'header' } | null {
  const fromHead = head.licenses[0];
  const fromHeader = fromHead === undefined && answer?.link ? licenseLinks(answer.link)[0] : undefined;
  const ref = fromHead ?? fromHeader;
  if (ref === undefined) return null;
  return { url: resolve(ref, url), from: fromHead !== undefined ? 'link' : 'header' };
}

function resolve(ref: string, base: string | null): string | null {
  try {
    const u = base === null ? new URL(ref) : new URL(ref, base);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : null;
  } catch {
    return null;
  }
}

/**
 * reparse: a stored home page read again, its headers from the night's last `fetches` row for it
 * (copied as it was). A page without a kept body keeps its files row as it was, and has no rows.
 */
export async function rebuildHomePage(out: Rows, db: SnapshotDb, date: string, row: Row<'files'>, stream: AsyncIterable<Uint8Array> | null, agents: readonly string[]): Promise<Row<'files'>> {
  if (!stream) return row;
  const reader = await readPageHead(stream, robotsMetaNames(agents));
  const [answer] = await db.rows(
    `SELECT x_robots_tag, content_usage, link, tdm_reservation, tdm_policy FROM fetches WHERE snapshot_date = CAST($1 AS DATE) AND subject = $2 AND file_kind = 'home_page' ORDER BY started_at DESC LIMIT 1`,
    [date, row.subject],
  );
  const read = emitPage(out, row.subject, row.url, reader.end(row.status === 'too_large'), row.obtained === 'reused' ? null : ((answer as unknown as PageAnswer | undefined) ?? null));
  return withContent(row, { ...NO_CONTENT, verdict: read.verdict, records: read.directives, ...read.counts });
}
