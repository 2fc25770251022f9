/**
 * Domain lists → crawl targets (contract §1 `adsnap crawl --domains FILE`): plain text (one
 * domain or URL per line), Tranco-style `rank,domain`, or CSV with a header naming a `domain`
 * column (and optionally a rank column), each optionally `.gz`/`.zip`, or stdin. Each value
 * becomes its root domain (PSL+1); duplicates and malformed lines are counted, never fatal. A
 * header line is never malformed: one naming no known column (`name,rank`) is skipped too.
 * Streams: lines are pulled only as fast as the consumer takes targets (that is the backpressure
 * from the crawl and its Parquet writers back to the file).
 */
import path from 'node:path';
import { normaliseDomain, type MalformedReason } from './domain-normalise.js';
import { openLineBatches, parseCsvLine } from './line-reader.js';
import { CompactStringSet } from '../util/compact-string-set.js';

export interface TargetInput {
  /** Root domain, ASCII (punycode), lower-case. */
  target: string;
  /** Rank column when the list has one, else the order among accepted lines (1-based). */
  rank: number | null;
  /** Input file name (or `sourceName`). */
  source: string;
  /** 1-based line number in the input. */
  inputLine: number;
  /** The value as written, before normalisation. */
  inputText: string;
}

export interface ListStats {
  /** Lines read (including blank lines, comments and the header). */
  lines: number;
  accepted: number;
  duplicates: number;
  malformed: number;
  /** The first few malformed lines, for the run manifest and the CLI's report. */
  malformedSamples: { lineNo: number; text: string; reason: string }[];
  /** Malformed lines per reason. */
  malformedByReason: Partial<Record<MalformedReason, number>>;
  skippedHeader: boolean;
  /** Blank lines and `#` comments. */
  ignored: number;
  /** How the lines were read. */
  layout: 'text' | 'rank_domain' | 'csv_header' | 'csv' | 'unknown';
  /** `limit` was reached before the end of the input. */
  stoppedAtLimit: boolean;
  /** The input was read to its end. */
  complete: boolean;
}

export interface ReadDomainListOptions {
  /** Stop after this many accepted targets. */
  limit?: number;
  /** Zip entry to read (default: the first file entry). */
  zipEntry?: string;
  /** Value of `source` (default: the input's base name, or `stdin`). */
  sourceName?: string;
  /** Malformed lines kept as samples. @default 20 */
  maxSamples?: number;
  /**
   * The set the reader de-duplicates with (a new one by default). A caller that needs the set of
   * accepted roots afterwards passes its own, rather than keeping a second copy of every root.
   */
  seen?: CompactStringSet;
}

// `origin`: the Chrome UX Report's top lists (`origin,rank`, an origin URL and its rank bucket).
const DOMAIN_HEADERS = ['domain', 'host', 'hostname', 'site', 'website', 'url', 'origin'];

interface Layout {
  kind: ListStats['layout'];
  domainCol: number; // -1: the whole line
  rankCol: number; // -1: none
}

function emptyStats(): ListStats {
  return {
    lines: 0,
    accepted: 0,
    duplicates: 0,
    malformed: 0,
    malformedSamples: [],
    malformedByReason: {},
    skippedHeader: false,
    ignored: 0,
    layout: 'unknown',
    stoppedAtLimit: false,
    complete: false,
  };
}

export function readDomainList(input: string, options: ReadDomainListOptions = {}): { targets: AsyncIterable<TargetInput>; stats: ListStats } {
  const limit = options.limit ?? Infinity;
  if (!(limit === Infinity || (Number.isInteger(limit) && limit >= 0))) throw new TypeError(`limit must be a non-negative integer, got ${options.limit}`);
  const source = options.sourceName ?? (input === '-' ? 'stdin' : path.basename(input));
  const maxSamples = options.maxSamples ?? 20;
  const stats = emptyStats();

  const malformed = (lineNo: number, text: string, reason: MalformedReason) => {
    stats.malformed++;
    stats.malformedByReason[reason] = (stats.malformedByReason[reason] ?? 0) + 1;
    if (stats.malformedSamples.length < maxSamples) stats.malformedSamples.push({ lineNo, text: text.slice(0, 256), reason });
  };

  async function* generate(): AsyncGenerator<TargetInput> {
    if (limit === 0) {
      stats.stoppedAtLimit = true;
      return;
    }
    const seen = options.seen ?? new CompactStringSet();
    let layout: Layout | null = null;
    // The first data line may be a header naming no column adsnap knows (`name,rank`, `Domain
    // Name`): if it yields no domain and looks like a header, it is skipped, never malformed, and
    // the next line decides the layout. `headerRankCol` is the rank column such a header named.
    let firstDataLine = true;
    let headerRankCol = -1;
    const lines = openLineBatches(input, options.zipEntry === undefined ? {} : { zipEntry: options.zipEntry });
    for await (const batch of lines) {
      for (const { line, lineNo } of batch) {
        stats.lines++;
        const trimmed = line.trim();
        if (trimmed === '' || trimmed.startsWith('#')) {
          stats.ignored++;
          continue;
        }
        if (layout === null) {
          layout = detectLayout(trimmed);
          if (headerRankCol >= 0 && layout.kind === 'csv' && headerRankCol !== layout.domainCol) layout = { ...layout, rankCol: headerRankCol };
          stats.layout = layout.kind;
          if (layout.kind === 'csv_header') {
            stats.skippedHeader = true;
            firstDataLine = false;
            continue;
          }
        }
        const isFirst = firstDataLine;
        firstDataLine = false;
        const cells = layout.domainCol < 0 ? null : parseCsvLine(trimmed);
        const value = cells === null ? trimmed : cells[layout.domainCol];
        const n = value === undefined ? null : normaliseDomain(value);
        if (n === null || !n.ok) {
          const header = isFirst ? headerLabels(trimmed) : null;
          if (header !== null && n?.reason !== 'localhost') {
            stats.skippedHeader = true;
            headerRankCol = rankColumn(header);
            layout = null;
            stats.layout = 'unknown';
            continue;
          }
          malformed(lineNo, line, n === null ? 'no_domain_field' : n.reason);
          continue;
        }
        if (!seen.add(n.root)) {
          stats.duplicates++;
          continue;
        }
        stats.accepted++;
        const rank = layout.rankCol >= 0 ? parseRank(cells![layout.rankCol]) : stats.accepted;
        yield { target: n.root, rank, source, inputLine: lineNo, inputText: value.trim() };
        if (stats.accepted >= limit) {
          stats.stoppedAtLimit = true;
          return; // leaving the for-await closes the file (and the zip) early
        }
      }
    }
    stats.complete = true;
  }

  return { targets: { [Symbol.asyncIterator]: generate }, stats };
}

/**
 * The first data line decides the layout: a CSV header naming a domain column (`domain`,
 * `host`, `url`, `origin` (CrUX), … in any position; a rank column is `rank` or one ending in `rank`, e.g.
 * Majestic's `GlobalRank`), Tranco's headerless `rank,domain`, or one value per line.
 */
function detectLayout(firstLine: string): Layout {
  if (!firstLine.includes(',')) {
    // A one-column CSV whose header names the column (Cloudflare Radar's `domain`) is not a domain.
    const only = firstLine.trim().replace(/^"(.*)"$/, '$1').toLowerCase();
    return DOMAIN_HEADERS.includes(only) ? { kind: 'csv_header', domainCol: 0, rankCol: -1 } : { kind: 'text', domainCol: -1, rankCol: -1 };
  }
  const cells = parseCsvLine(firstLine).map((c) => c.trim().toLowerCase());
  for (const name of DOMAIN_HEADERS) {
    const domainCol = cells.indexOf(name);
    if (domainCol >= 0) return { kind: 'csv_header', domainCol, rankCol: rankColumn(cells) };
  }
  if (/^\d+$/.test(cells[0] ?? '') && cells.length >= 2) return { kind: 'rank_domain', domainCol: 1, rankCol: 0 };
  return { kind: 'csv', domainCol: 0, rankCol: -1 }; // headerless CSV: the first column
}

/** The rank column of a header's (lower-case) labels: `rank`, else the first ending in `rank`. */
function rankColumn(labels: string[]): number {
  const exact = labels.indexOf('rank');
  return exact >= 0 ? exact : labels.findIndex((c) => c.endsWith('rank'));
}

// A header label: starts with a letter, then letters, digits, spaces, `_`, `-`, parentheses. No dot
// (a domain has one), no `/` or `:` (a URL has them), not a number.
const HEADER_LABEL = /^\p{L}[\p{L}\p{N} _()-]*$/u;

/**
 * A line that looks like a header: every non-empty field (a line without a comma is one field) is
 * a word-like label, and there is at least one. Returns the lower-case labels, or null.
 */
function headerLabels(line: string): string[] | null {
  const fields = (line.includes(',') ? parseCsvLine(line) : [line.replace(/^"(.*)"$/, '$1')]).map((c) => c.trim());
  if (!fields.some((f) => f !== '')) return null;
  return fields.every((f) => f === '' || HEADER_LABEL.test(f)) ? fields.map((f) => f.toLowerCase()) : null;
}

function parseRank(cell: string | undefined): number | null {
  if (cell === undefined) return null;
  const t = cell.trim();
  if (!/^\d{1,10}$/.test(t)) return null;
  const n = Number(t);
  return n <= 0x7fffffff ? n : null; // targets.rank is int32
}
