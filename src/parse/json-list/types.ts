/**
 * What sellers.json and buyers.json (IAB Tech Lab sellers.json 1.0, buyers.json 1.0) share: a
 * parent object with `version`, `contact_email`, `contact_address`, `identifiers` and `ext`, and
 * one array of entries. One parser reads both (list-file-parser.ts); each file kind is a small
 * declaration of its list key, its entry fields and its own issue codes (`ListFileKind`).
 */

export type Severity = 'error' | 'warning' | 'info';

/** An `identifiers[]` element of the parent object (name/value pairs such as TAG-ID, DUNS). */
export interface ListIdentifier {
  name: string | null;
  value: string | null;
}

export interface ListIssue<C extends string> {
  /** Line where the offending entry or token starts; null for file-level issues. */
  lineNo: number | null;
  severity: Severity;
  code: C;
  message: string;
  /** The offending entry as compact text, at most 256 characters; null for file-level issues. */
  lineText: string | null;
}

/** Identifiers kept per file; more are counted in a VALUE_TOO_LARGE issue. */
export const MAX_IDENTIFIERS = 1000;

/**
 * The issue codes both kinds share, with one meaning and one severity in each (a numeric
 * `version` is VERSION_NOT_STRING in both, a list of identifiers cut at MAX_IDENTIFIERS is
 * VALUE_TOO_LARGE in both). Each kind adds its own (types.ts of sellers/ and buyers/).
 */
export const LIST_FILE_ISSUE_CODES = {
  EMPTY_FILE: 'error',
  HTML_BODY: 'error',
  INVALID_JSON: 'error',
  NOT_AN_OBJECT: 'error',
  MISSING_VERSION: 'warning',
  VERSION_NOT_STRING: 'warning',
  NONSTANDARD_KEY: 'warning',
  UTF16_ENCODING: 'info',
  INVALID_FIELD_TYPE: 'warning',
  VALUE_TOO_LARGE: 'warning',
  MORE_ISSUES_NOT_LISTED: 'info',
  DUPLICATE_KEY: 'warning',
  UNKNOWN_KEY: 'info',
} as const satisfies Record<string, Severity>;

export type ListFileIssueCode = keyof typeof LIST_FILE_ISSUE_CODES;

/** The parent object as read; the same fields in both kinds. */
export interface ListFileHeader {
  version: string | null;
  contactEmail: string | null;
  contactAddress: string | null;
  /** At most MAX_IDENTIFIERS. */
  identifiers: ListIdentifier[];
  /** The top-level `ext` object as JSON text (re-serialised), or null when absent. */
  ext: string | null;
}

/**
 * `ok`: the list was read; `empty`: no bytes, or an empty list; `html`: the body is an HTML page;
 * `invalid_json`: the JSON is broken (entries read before and, after recovery, around the break
 * are still reported); `not_list`: valid JSON without the list (each kind names it:
 * `not_sellers_json`, `not_buyers_json`).
 */
export type ListFileStatus<NotList extends string> = 'ok' | 'invalid_json' | 'empty' | 'html' | NotList;

export interface ListFileCounts {
  errors: number;
  warnings: number;
  infos: number;
}
