import type { AdsTxtSummary } from '../src/parse/adstxt/index.js';
import type { BuyersSummary } from '../src/parse/buyers/index.js';
import type { SellersSummary } from '../src/parse/sellers/index.js';
import { adsFileStatus, robotsFileStatus, sellersFileStatus, type ContentVerdict, type FileStatus } from '../src/resolve/file-status.js';
import { fileRow, type Via } from '../src/tables/rows.js';
import type { Row } from '../schemas/tables.js';
import type { IssueCounts, ParsedRobots } from './body-parsers.js';
import type { ParsedConsent } from './consent-bodies.js';
import type { Obtained } from './obtain-file.js';

/**
 * The one assembly of a `files` row, per file kind, for the crawl's jobs and for `reparse`:
 * what a body's content is (`*Content`: the status and validity of a body read whole, and its
 * counts) and, for the crawl, where it came from (`crawledFileRow`). reparse rebuilds the content
 * columns of a stored row from the same functions, so a re-read night says what a crawl would.
 */

/** The content columns of a files row. `verdict` is null when no body was read whole. */
export interface FileContent {
  verdict: ContentVerdict | null;
  records: number;
  variables: number;
  errors: number;
  warnings: number;
  /** Physical lines of a text body; null for JSON kinds or without a body. */
  lines: number | null;
}

/** The content of a body read whole: it has a verdict. */
export type ReadContent = FileContent & { verdict: ContentVerdict };

/** No body was read whole (the fetch failed, or the file was not there). */
export const NO_CONTENT: FileContent = Object.freeze({ verdict: null, records: 0, variables: 0, errors: 0, warnings: 0, lines: null });

/** ads.txt / app-ads.txt: the parse result, judged with the Content-Type and truncation (ads.txt 1.1 §3.1, §3.2.1). */
export function adsContent(read: { summary: AdsTxtSummary; counts: IssueCounts; lines: number }, contentType: string | null, truncated: boolean): ReadContent {
  const { summary, counts } = read;
  const verdict = adsFileStatus({ parseStatus: summary.status, contentType, truncated, records: summary.records, variables: summary.variables });
  return { verdict, records: summary.records, variables: summary.variables, ...counts, lines: read.lines };
}

/**
 * robots.txt: records are the rule rows written, variables its sitemap and other lines; the
 * agent and licence rows written beside it add their issues (`emitted`).
 */
export function robotsContent(read: ParsedRobots | null, truncated: boolean, emitted: { rules: number } & IssueCounts): FileContent {
  const txt = read?.txt ?? null;
  return {
    verdict: read === null ? null : robotsFileStatus({ truncated, html: read.html }),
    records: emitted.rules,
    variables: txt ? txt.sitemaps.length + txt.others.length : 0,
    errors: (txt ? count(txt.issues, 'error') : 0) + emitted.errors,
    warnings: (txt ? count(txt.issues, 'warning') : 0) + emitted.warnings,
    lines: read?.lines ?? null,
  };
}

/** sellers.json: its entries read, judged by the parse status and truncation. */
export function sellersContent(read: { summary: SellersSummary; counts: IssueCounts }, truncated: boolean): ReadContent {
  return listContent(read.summary.status, read.summary.sellers, read.counts, truncated);
}

/** buyers.json: as sellers.json (IAB Tech Lab buyers.json 1.0 mirrors it). */
export function buyersContent(read: { summary: BuyersSummary; counts: IssueCounts }, truncated: boolean): ReadContent {
  return listContent(read.summary.status, read.summary.buyers, read.counts, truncated);
}

function listContent(parseStatus: SellersSummary['status'] | BuyersSummary['status'], entries: number, counts: IssueCounts, truncated: boolean): ReadContent {
  return { ...NO_CONTENT, verdict: sellersFileStatus({ parseStatus, truncated }), records: entries, ...counts };
}

/** The consent files (tdmrep.json, llms.txt, an RSL licence): their own verdict, `too_large` when cut. */
export function consentContent(read: ParsedConsent, truncated: boolean): ReadContent {
  const verdict: ContentVerdict = truncated ? { status: 'too_large', valid: false } : read.verdict;
  return { ...NO_CONTENT, verdict, records: read.records, ...read.counts };
}

/** Whose file a row describes. */
export interface FileSubject {
  subject: string;
  fileKind: string;
  via: Via;
  robotsAllowed: boolean | null;
}

/** A file not asked for: robots.txt disallows it and the operator obeys (--obey-robots all). */
export function disallowedFileRow(who: FileSubject): Row<'files'> {
  return fileRow({ ...who, url: null, status: 'disallowed_by_robots', obtained: null, httpStatus: null, valid: false });
}

/**
 * The files row of a file the crawl obtained. Its status is what the content was, however it
 * was obtained: the fetch's status when the fetch decided (404, a wall, unreachable…) or no body
 * was read whole, else the content's verdict. `url` is the URL whose body was used: null without
 * one, unless `urlWithoutBody` (robots.txt names the file its policy came from).
 */
export function crawledFileRow(got: Obtained<unknown>, who: FileSubject, content: FileContent, urlWithoutBody = false): { row: Row<'files'>; status: FileStatus } {
  const f = got.file;
  const { status, valid } = f.fetchStatus !== null || content.verdict === null ? { status: f.fetchStatus ?? ('unreachable' as const), valid: false } : content.verdict;
  const row = fileRow({
    ...who,
    url: content.verdict !== null || urlWithoutBody ? f.url : null,
    status,
    httpStatus: f.httpStatus,
    valid,
    records: content.records,
    variables: content.variables,
    errors: content.errors,
    warnings: content.warnings,
    lines: content.lines,
    obtained: got.obtained,
    bytes: f.bytes,
    sha256: f.sha256,
    contentType: f.contentType,
    fetchedAt: f.fetchedAt,
    ageDays: f.ageDays,
    etag: f.etag,
    lastModified: f.lastModified,
    freshUntil: f.freshUntil,
  });
  return { row, status };
}

/** A stored files row with its content columns read again (reparse); unchanged without a verdict. */
export function withContent(row: Row<'files'>, content: FileContent): Row<'files'> {
  if (content.verdict === null) return row;
  const { verdict, records, variables, errors, warnings, lines } = content;
  return Object.assign(row, { records, variables, errors, warnings, lines, ...verdict });
}

function count(issues: readonly { severity: string }[], severity: string): number {
  let n = 0;
  for (const i of issues) if (i.severity === severity) n++;
  return n;
}
