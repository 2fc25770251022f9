/**
 * CSV as adsnap writes it (RFC 4180: comma, CRLF, a field quoted when it holds a comma, a quote,
 * CR or LF, quotes doubled), through csv-stringify. NULL is an empty field and an empty string is
 * `""`, so the two read back apart; lists and structs are their JSON; booleans `true`/`false`.
 *
 * Spreadsheet-safe CSV (the report's files, `adsnap sql --format csv --spreadsheet-safe`): a text
 * cell that a spreadsheet would read as a formula is neutralised as OWASP's "CSV Injection" page
 * says (CWE-1236): a leading `'` and the cell quoted. A formula starts with `=`, `+`, `-`, `@`, a
 * tab or a carriage return, or with the full-width `＝ ＋ － ＠` that Apple Numbers folds to them.
 * Numbers stay numbers: a numeric cell, and a text cell that is a plain decimal number such as
 * `-12` or `+3.5e2` (a wide DECIMAL or BIGINT printed as text), are written as they are.
 */
import { stringify, type Cast } from 'csv-stringify/sync';

/** A cell as adsnap's result rows hold it (DuckDB values converted by src/sql/output.ts's cellConverter). */
export type CsvCell = string | number | boolean | null | readonly unknown[] | { readonly [k: string]: unknown };

export interface CsvOptions {
  /** Neutralise text cells a spreadsheet would run as formulas. @default false */
  spreadsheetSafe?: boolean;
}

const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** True when a spreadsheet would read the text as a formula (and it is not a plain number). */
export function isFormulaLike(text: string): boolean {
  return FORMULA_START.test(text) && !DECIMAL.test(text);
}

function castString(safe: boolean): Cast<string> {
  return (v) => {
    if (v === '') return { value: '', quoted_empty: true };
    if (safe && isFormulaLike(v)) return { value: `'${v}`, quoted: true };
    return v;
  };
}

/** CSV lines (each ending CRLF) for the rows; a header is one of the rows. */
export function csvLines(rows: readonly (readonly CsvCell[])[], o: CsvOptions = {}): string {
  if (rows.length === 0) return '';
  return stringify(rows as unknown[][], {
    record_delimiter: 'windows',
    // A field holding a lone CR or LF is quoted too (with record_delimiter set, the package quotes only CRLF unless told).
    quote_record_delimiter: true,
    eof: true,
    cast: {
      string: castString(o.spreadsheetSafe === true),
      boolean: (v) => String(v),
      // JSON of a list or struct starts with [ or {: never a formula.
      object: (v) => JSON.stringify(v),
    },
  });
}

/** A whole CSV file: the header line, then the rows, every line ending CRLF. */
export function csvText(columns: readonly string[], rows: readonly (readonly CsvCell[])[], o: CsvOptions = {}): string {
  return csvLines([columns, ...rows], o);
}
