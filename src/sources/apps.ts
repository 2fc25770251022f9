/**
 * App lists (contract §1, `crawl --apps FILE`): store URLs one per line, or CSV with a header
 * naming a `store_url` column and optionally `bundle_id`, `store_id`, `developer_url`. Bulk
 * data that already carries the developer URL lets the crawl skip the store page
 * (app-ads.txt 1.0 allows "APIs/file formats that provide a bulk transfer solution").
 * Apps are keyed by (store host, id) so URL variants of one app are one app.
 */
import { CompactStringSet } from '../util/compact-string-set.js';
import type { Row } from '../../schemas/tables.js';
import { openLines, parseCsvLine, type InputLine } from './line-reader.js';
import { recognizeStoreUrl, type StoreName } from './store-id.js';

export { recognizeStoreUrl, type RecognizedStoreUrl, type StoreName } from './store-id.js';

export interface AppInput {
  store: StoreName;
  storeHost: string;
  /** The store URL as given in the list. */
  storeUrl: string;
  /** `${storeHost}/${id}` (or the normalized URL for store 'other'): one key per app. */
  appKey: string;
  bundleId: string | null;
  storeId: string | null;
  /** From the list (CSV `developer_url`), or null when the store page must be read. */
  developerUrl: string | null;
  /** 1-based line in the list. */
  inputLine: number;
  /** The store URL as written on that line. */
  inputText: string;
  /** The listing URL to fetch. */
  canonicalStoreUrl: string;
}

export interface MalformedSample {
  lineNo: number;
  text: string;
  reason: string;
}

export interface AppListStats {
  /** Lines read, header, blank and comment lines included. */
  lines: number;
  accepted: number;
  /** Lines naming an app already accepted (same store host and id). */
  duplicates: number;
  malformed: number;
  /** The first few malformed lines, with why. */
  malformedSamples: MalformedSample[];
  format: 'text' | 'csv' | null;
}

export interface AppListOptions {
  /** Stop after this many accepted apps (the file is closed early). */
  limit?: number;
  /** Zip entry to read (default: the first). */
  zipEntry?: string;
  /** Malformed lines kept as samples. @default 10 */
  maxSamples?: number;
}

// Header names accepted for each column (lower-cased). `developer_domain_url` is AppGoblin's.
const COLUMNS = {
  storeUrl: ['store_url', 'storeurl', 'app_store_url', 'url'],
  bundleId: ['bundle_id', 'bundle', 'bundleid', 'package_name', 'package'],
  storeId: ['store_id', 'storeid'],
  developerUrl: ['developer_url', 'developer_website', 'developer_domain_url', 'developer_domain', 'website'],
} as const;

type ColumnIndex = Record<keyof typeof COLUMNS, number>;

function csvHeader(fields: string[]): ColumnIndex | null {
  const names = fields.map((f) => f.trim().toLowerCase());
  const find = (aliases: readonly string[]) => {
    for (const a of aliases) {
      const i = names.indexOf(a);
      if (i !== -1) return i;
    }
    return -1;
  };
  const idx: ColumnIndex = { storeUrl: find(COLUMNS.storeUrl), bundleId: find(COLUMNS.bundleId), storeId: find(COLUMNS.storeId), developerUrl: find(COLUMNS.developerUrl) };
  return idx.storeUrl === -1 ? null : idx;
}

const field = (fields: string[], i: number): string | null => {
  if (i === -1) return null;
  const v = fields[i]?.trim() ?? '';
  return v === '' ? null : v;
};

/** Reads an app list file (path, `.gz`, `.zip`, or `-` for stdin). `stats` fills in as `apps` is iterated. */
export function readAppList(input: string, options: AppListOptions = {}): { apps: AsyncIterable<AppInput>; stats: AppListStats } {
  return parseAppLines(openLines(input, { zipEntry: options.zipEntry }), options);
}

/** The same, over lines from any source. */
export function parseAppLines(lines: AsyncIterable<InputLine>, options: AppListOptions = {}): { apps: AsyncIterable<AppInput>; stats: AppListStats } {
  const stats: AppListStats = { lines: 0, accepted: 0, duplicates: 0, malformed: 0, malformedSamples: [], format: null };
  const maxSamples = options.maxSamples ?? 10;
  const limit = options.limit ?? Infinity;

  async function* apps(): AsyncGenerator<AppInput> {
    if (limit <= 0) return;
    // 8 bytes per app key (a 64-bit hash), whatever the key's length: 20k apps with 10 KB store
    // URLs would otherwise keep 200 MB of keys (collision odds: compact-string-set.ts).
    const seen = new CompactStringSet(1024);
    let columns: ColumnIndex | null = null;
    const malformed = (lineNo: number, text: string, reason: string) => {
      stats.malformed++;
      if (stats.malformedSamples.length < maxSamples) stats.malformedSamples.push({ lineNo, text: text.slice(0, 256), reason });
    };
    for await (const { line, lineNo } of lines) {
      stats.lines++;
      const trimmed = line.trim();
      if (trimmed === '' || trimmed.startsWith('#')) continue;
      if (stats.format === null) {
        // The first content line decides: a header naming store_url means CSV.
        columns = trimmed.includes(',') || !/^[a-z]+:\/\//i.test(trimmed) ? csvHeader(parseCsvLine(trimmed)) : null;
        stats.format = columns ? 'csv' : 'text';
        if (columns) continue;
      }
      let storeUrl: string | null;
      let bundleId: string | null = null;
      let storeId: string | null = null;
      let developerUrl: string | null = null;
      if (columns) {
        const fields = parseCsvLine(line);
        storeUrl = field(fields, columns.storeUrl);
        bundleId = field(fields, columns.bundleId);
        storeId = field(fields, columns.storeId);
        developerUrl = field(fields, columns.developerUrl);
        if (storeUrl === null) {
          malformed(lineNo, line, 'no store_url');
          continue;
        }
      } else storeUrl = trimmed;
      const rec = recognizeStoreUrl(storeUrl);
      if (rec === null) {
        malformed(lineNo, line, 'not an app store listing URL');
        continue;
      }
      if (!seen.add(rec.appKey)) {
        stats.duplicates++;
        continue;
      }
      stats.accepted++;
      yield {
        store: rec.store,
        storeHost: rec.storeHost,
        storeUrl,
        appKey: rec.appKey,
        // The URL's ids come first (they are the key); the list fills in what the URL lacks.
        bundleId: rec.bundleId ?? bundleId,
        storeId: rec.storeId ?? storeId,
        developerUrl,
        inputLine: lineNo,
        inputText: storeUrl,
        canonicalStoreUrl: rec.canonicalUrl,
      };
      if (stats.accepted >= limit) return; // leaving the loop closes the list
    }
  }

  return { apps: { [Symbol.asyncIterator]: apps }, stats };
}

/** What the crawl learnt about an app, for its `apps` row. */
export interface AppOutcome {
  /** Developer URL used (from the list or the store page); null when none. */
  developerUrl: string | null;
  /** 'input', 'meta', 'json_ld', 'page_link', … (null when there is no developer URL). */
  developerUrlSource: string | null;
  bundleId?: string | null;
  storeId?: string | null;
  /** Host whose app-ads.txt was used, null if none. */
  subject: string | null;
  status: string | null;
}

/** The `apps` table row of an app; ids read from the store page override the list's. */
export function appRow(app: AppInput, outcome: AppOutcome): Row<'apps'> {
  return {
    store: app.store,
    store_url: app.storeUrl,
    bundle_id: outcome.bundleId ?? app.bundleId,
    store_id: outcome.storeId ?? app.storeId,
    developer_url: outcome.developerUrl,
    developer_url_source: outcome.developerUrlSource,
    subject: outcome.subject,
    status: outcome.status,
  };
}
