import { AdsTxtParser, type AdsFileKind, type AdsTxtSummary } from '../src/parse/adstxt/index.js';
import { HtmlSniffer } from '../src/parse/adstxt/html-sniffer.js';
import { RobotsParser, verdicts, type RobotsPolicy, type RobotsSemantics, type RobotsTxt } from '../src/parse/robots/index.js';
import { SellersJsonParser, type SellersSummary } from '../src/parse/sellers/index.js';
import { BuyersJsonParser, type BuyersSummary } from '../src/parse/buyers/index.js';
import { LineCounter } from '../src/text/line-count.js';
import { intermediaryToFetch } from '../src/resolve/intermediaries.js';
import { adsRecordColumns, adsVariableColumns, buyerRow, issueRow, sellerRow, type IssueLike } from '../src/tables/rows.js';
import type { Rows } from './context.js';

/**
 * From a body's bytes to table rows, per file kind: the one place both the crawl and `adsnap
 * reparse` turn parser events into rows. Each reads the body as a stream and waits for the
 * writer after every chunk (backpressure).
 */
export interface IssueCounts {
  errors: number;
  warnings: number;
}

export async function parseAdsBody(
  out: Rows,
  subject: string,
  fileKind: AdsFileKind,
  body: AsyncIterable<Uint8Array>,
  named?: Set<string>,
): Promise<{ summary: AdsTxtSummary; counts: IssueCounts; lines: number }> {
  const counts: IssueCounts = { errors: 0, warnings: 0 };
  const lines = new LineCounter();
  const parser = new AdsTxtParser(
    {
      onRecord(r) {
        named?.add(r.adSystemDomain);
        out.emit('ads_records', { subject, file_kind: fileKind, ...adsRecordColumns(r) });
      },
      onVariable(v) {
        out.emit('ads_variables', { subject, file_kind: fileKind, ...adsVariableColumns(v) });
      },
      onIssue(i) {
        count(counts, i.severity);
        out.emit('parse_issues', issueRow(subject, fileKind, i));
      },
    },
    { fileKind },
  );
  for await (const chunk of body) {
    parser.push(chunk);
    lines.push(chunk);
    await out.settle();
  }
  return { summary: parser.end(), counts, lines: lines.end() };
}

/** A robots.txt as parsed, and whether the body is in fact an HTML page (a soft 404). */
export interface ParsedRobots {
  txt: RobotsTxt;
  html: boolean;
  /** Physical lines of the body (files.lines). */
  lines: number;
}

/** Bytes of a robots.txt body looked at to tell an HTML page from a robots.txt. */
const ROBOTS_SNIFF_BYTES = 4096;

export async function parseRobotsBody(body: AsyncIterable<Uint8Array>): Promise<ParsedRobots> {
  const parser = new RobotsParser();
  const lines = new LineCounter();
  const head: Uint8Array[] = [];
  let headBytes = 0;
  for await (const chunk of body) {
    lines.push(chunk);
    if (headBytes < ROBOTS_SNIFF_BYTES) {
      head.push(chunk.subarray(0, ROBOTS_SNIFF_BYTES - headBytes));
      headBytes += Math.min(chunk.length, ROBOTS_SNIFF_BYTES - headBytes);
    }
    parser.push(chunk);
  }
  return { txt: parser.end(), html: looksLikeHtml(Buffer.concat(head).toString('utf8')), lines: lines.end() };
}

/** The ads.txt sniffer's rule (html-sniffer.ts) on a text file's first lines, `#` comments removed (robots.txt, the consent files). */
export function looksLikeHtml(text: string): boolean {
  const sniffer = new HtmlSniffer();
  for (const raw of text.split(/\r\n|\r|\n/)) {
    const hash = raw.indexOf('#');
    const line = (hash >= 0 ? raw.slice(0, hash) : raw).trim();
    if (line === '') continue;
    const verdict = sniffer.push(line);
    if (verdict !== null) return verdict === 'html';
  }
  return sniffer.decide() === 'html';
}

/** robots_rules, robots_sitemaps, robots_managed_blocks, parse_issues of a parsed robots.txt and the verdicts of its policy; returns the rule count. */
export function emitRobots(out: Rows, host: string, txt: RobotsTxt | null, policy: RobotsPolicy, agents: readonly string[], paths: readonly string[], semantics: RobotsSemantics): number {
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
    for (const b of txt.managedBlocks) out.emit('robots_managed_blocks', { host, managed_by: b.generator, begin_line: b.beginLine, end_line: b.endLine });
    for (const i of txt.issues) out.emit('parse_issues', issueRow(host, 'robots.txt', i));
  }
  for (const v of verdicts(policy, agents, paths)) {
    out.emit('robots_verdicts', { host, user_agent: v.userAgent, path: v.path, allowed: v.allowed, matched_line: v.matchedLine, policy: v.policy, semantics });
  }
  return rules;
}

/**
 * `intermediaries`, when given, collects the hosts whose sellers.json the file's INTERMEDIARY and
 * BOTH entries name (the next round of the sellers phase; src/resolve/intermediaries.ts).
 */
export async function parseSellersBody(out: Rows, domain: string, body: AsyncIterable<Uint8Array>, intermediaries?: Set<string>): Promise<{ summary: SellersSummary; counts: IssueCounts }> {
  const counts: IssueCounts = { errors: 0, warnings: 0 };
  const parser = new SellersJsonParser({
    onSeller(s) {
      out.emit('sellers', sellerRow(domain, s));
      if (intermediaries) {
        const host = intermediaryToFetch(s.sellerType, s.domain);
        if (host !== null) intermediaries.add(host);
      }
    },
    onIssue(i) {
      count(counts, i.severity);
      out.emit('parse_issues', issueRow(domain, 'sellers.json', i));
    },
  });
  return { summary: await pump(parser, body, out), counts };
}

/** buyers.json (IAB Tech Lab buyers.json 1.0): `buyers` rows and its issues, streamed like sellers.json. */
export async function parseBuyersBody(out: Rows, domain: string, body: AsyncIterable<Uint8Array>): Promise<{ summary: BuyersSummary; counts: IssueCounts }> {
  const counts: IssueCounts = { errors: 0, warnings: 0 };
  const parser = new BuyersJsonParser({
    onBuyer: (b) => out.emit('buyers', buyerRow(domain, b)),
    onIssue(i) {
      count(counts, i.severity);
      out.emit('parse_issues', issueRow(domain, 'buyers.json', i));
    },
  });
  return { summary: await pump(parser, body, out), counts };
}

/** Streams a body through a JSON file parser, waiting for the writer after every chunk (backpressure). */
async function pump<S>(parser: { push(chunk: Uint8Array): void; end(): S }, body: AsyncIterable<Uint8Array>, out: Rows): Promise<S> {
  for await (const chunk of body) {
    parser.push(chunk);
    await out.settle();
  }
  return parser.end();
}

function count(c: IssueCounts, severity: string): void {
  if (severity === 'error') c.errors++;
  else if (severity === 'warning') c.warnings++;
}

/** `parse_issues` rows of issues found after the parse (usage signals, licences, consent files); returns their counts. */
export function emitIssueRows(out: Rows, subject: string, fileKind: string, issues: readonly IssueLike[]): IssueCounts {
  const counts: IssueCounts = { errors: 0, warnings: 0 };
  for (const i of issues) {
    count(counts, i.severity);
    out.emit('parse_issues', issueRow(subject, fileKind, i));
  }
  return counts;
}
