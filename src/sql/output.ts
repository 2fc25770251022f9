/**
 * How `adsnap sql` prints a DuckDB result: the cell values (BIGINT as a number when it is safe,
 * else a string; dates YYYY-MM-DD; timestamps ISO 8601; lists as arrays) and the four formats
 * (table, csv, json, ndjson). Rows are streamed chunk by chunk except for `table`, whose column
 * widths need every row.
 */
import {
  DuckDBDecimalType,
  DuckDBTimestampTZValue,
  DuckDBTimestampValue,
  DuckDBTypeId,
  JsonDuckDBValueConverter,
  type DuckDBResult,
  type DuckDBType,
  type DuckDBValueConverter,
  type Json,
} from '@duckdb/node-api';
import { csvLines } from '../text/csv.js';
import { visible } from '../text/visible.js';

export const FORMATS = ['table', 'csv', 'json', 'ndjson'] as const;
export type Format = (typeof FORMATS)[number];

/** How a result is printed: the format, and for csv whether formula-like text cells are neutralised (text/csv.ts). */
export interface OutputOptions {
  format: Format;
  /** csv only. @default false: faithful CSV, data for programs */
  spreadsheetSafe?: boolean;
}

/** Writes text to the output, resolving when it may be written to again (backpressure). */
export type Write = (text: string) => Promise<void>;

/** Integers: a JS number when exactly representable, else the decimal string. */
function integer(value: unknown): number | string {
  const text = String(value);
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : text;
}

/** ISO 8601 from microseconds since the epoch: `…T…Z` for TIMESTAMPTZ, no zone for TIMESTAMP. */
function isoFromMicros(micros: bigint, utc: boolean, fallback: string): string {
  let ms = micros / 1000n;
  if (micros < 0n && micros % 1000n !== 0n) ms -= 1n;
  const date = new Date(Number(ms));
  if (Number.isNaN(date.getTime())) return fallback; // infinity, or beyond JS dates
  const extra = micros - ms * 1000n; // 0…999
  let iso = date.toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ
  if (extra !== 0n) iso = iso.slice(0, -1) + String(extra).padStart(3, '0') + 'Z';
  return utc ? iso : iso.slice(0, -1);
}

/** DuckDB value → JSON value, recursing into lists, arrays, structs and maps. */
export const cellConverter: DuckDBValueConverter<Json> = (value, type, converter) => {
  if (value === null || value === undefined) return null;
  switch (type.typeId) {
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UHUGEINT:
    case DuckDBTypeId.BIGNUM:
      return integer(value);
    case DuckDBTypeId.DECIMAL: {
      // Up to 15 significant digits a double holds exactly; wider decimals stay strings.
      const text = String(value);
      return type instanceof DuckDBDecimalType && type.width <= 15 ? Number(text) : text;
    }
    case DuckDBTypeId.TIMESTAMP_TZ:
      return value instanceof DuckDBTimestampTZValue ? isoFromMicros(value.micros, true, String(value)) : String(value);
    case DuckDBTypeId.TIMESTAMP:
      return value instanceof DuckDBTimestampValue ? isoFromMicros(value.micros, false, String(value)) : String(value);
    case DuckDBTypeId.TIMESTAMP_S:
    case DuckDBTypeId.TIMESTAMP_MS:
    case DuckDBTypeId.TIMESTAMP_NS:
      return String(value).replace(' ', 'T');
    default:
      return JsonDuckDBValueConverter(value, type, converter);
  }
};

const NUMERIC = new Set<DuckDBTypeId>([
  DuckDBTypeId.TINYINT, DuckDBTypeId.SMALLINT, DuckDBTypeId.INTEGER, DuckDBTypeId.BIGINT,
  DuckDBTypeId.UTINYINT, DuckDBTypeId.USMALLINT, DuckDBTypeId.UINTEGER, DuckDBTypeId.UBIGINT,
  DuckDBTypeId.HUGEINT, DuckDBTypeId.UHUGEINT, DuckDBTypeId.BIGNUM, DuckDBTypeId.FLOAT,
  DuckDBTypeId.DOUBLE, DuckDBTypeId.DECIMAL,
]);

/** A cell as text: strings as they are, lists and structs as JSON, NULL as `nullText`. */
function cellText(v: Json, nullText: string): string {
  if (v === null) return nullText;
  if (typeof v === 'string') return v;
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** A cell's lines: a value with newlines spans several lines; control characters and escape sequences are shown, not obeyed (text/visible.ts). */
function tableCell(v: Json): string[] {
  return cellText(v, 'NULL').split(/\r?\n/).map(visible);
}

const width = (text: string): number => [...text].length;

/**
 * Aligned columns with a header and a rule, numbers right-aligned, then `(N rows)`:
 *
 *     snapshot_date | n
 *     --------------+----
 *     2026-11-22    | 262
 *     (1 row)
 */
export function renderTable(names: string[], types: DuckDBType[], rows: Json[][]): string {
  if (names.length === 0) return '';
  const heads = names.map(visible);
  const cells = rows.map((r) => r.map(tableCell));
  const widths = heads.map(width);
  for (const r of cells) r.forEach((c, i) => c.forEach((l) => (widths[i] = Math.max(widths[i]!, width(l)))));
  const right = types.map((t) => NUMERIC.has(t.typeId));
  const pad = (text: string, i: number, alignRight: boolean) => {
    const fill = ' '.repeat(widths[i]! - width(text));
    return alignRight ? fill + text : text + fill;
  };
  const line = (parts: string[]) => parts.join(' | ').trimEnd();
  const out = [line(heads.map((n, i) => pad(n, i, false))), widths.map((w) => '-'.repeat(w)).join('-+-')];
  for (const r of cells) {
    const height = Math.max(...r.map((c) => c.length));
    for (let k = 0; k < height; k++) out.push(line(r.map((c, i) => pad(c[k] ?? '', i, right[i]!))));
  }
  out.push(`(${rows.length} ${rows.length === 1 ? 'row' : 'rows'})`);
  return out.join('\n') + '\n';
}

/** Object keys for json/ndjson: a repeated column name gets `_2`, `_3`… */
function objectKeys(names: string[]): string[] {
  const seen = new Map<string, number>();
  return names.map((n) => {
    const k = (seen.get(n) ?? 0) + 1;
    seen.set(n, k);
    return k === 1 ? n : `${n}_${k}`;
  });
}

function rowObject(keys: string[], row: Json[]): Record<string, Json> {
  const o: Record<string, Json> = {};
  keys.forEach((k, i) => (o[k] = row[i] ?? null));
  return o;
}

/** Prints a whole result in `o.format`. */
export async function printResult(result: DuckDBResult, o: OutputOptions, write: Write): Promise<void> {
  const format = o.format;
  const csv = { spreadsheetSafe: o.spreadsheetSafe === true };
  const names = result.columnNames();
  const types = result.columnTypes();
  const chunks = result.yieldConvertedRows(cellConverter) as AsyncIterableIterator<Json[][]>;
  if (format === 'table') {
    const rows: Json[][] = [];
    for await (const chunk of chunks) for (const r of chunk) rows.push(r);
    await write(renderTable(names, types, rows));
    return;
  }
  const keys = objectKeys(names);
  if (format === 'csv' && names.length > 0) await write(csvLines([names], csv));
  let first = true;
  if (format === 'json') await write('[');
  for await (const chunk of chunks) {
    if (format === 'csv') {
      await write(csvLines(chunk, csv));
      continue;
    }
    let text = '';
    for (const r of chunk) {
      if (format === 'ndjson') text += JSON.stringify(rowObject(keys, r)) + '\n';
      else {
        text += (first ? '' : ',\n') + JSON.stringify(rowObject(keys, r));
        first = false;
      }
    }
    await write(text);
  }
  if (format === 'json') await write(']\n');
}
