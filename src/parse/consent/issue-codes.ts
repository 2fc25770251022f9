/**
 * The stable issue codes of the consent files read with `--ai-signals`: TDMRep's
 * /.well-known/tdmrep.json, an RSL licence and llms.txt. docs/reference/parse-issues.md is
 * generated from this list (npm run docs); a parser reports only codes listed here.
 */
export type ConsentFileKind = 'tdmrep.json' | 'rsl' | 'llms.txt';
export type Severity = 'error' | 'warning' | 'info';

export interface ConsentIssueCode {
  code: string;
  /** `home_page`: the site's / read up to the end of its head (page-head.ts). */
  kind: ConsentFileKind | 'home_page';
  severity: Severity;
  meaning: string;
  spec: string;
}

const TDMREP = 'TDMRep (W3C CG Final Report 2024-05-10) §3.1';
const RSL = 'RSL 1.0 (RSL TSC, 2025)';
const LLMS = 'llms.txt proposal (2024-09-03)';
const HTML_HEAD = 'HTML Living Standard §13.2.6.4.4 (the "in head" insertion mode)';

export const consentIssueCodes: readonly ConsentIssueCode[] = [
  { code: 'TDMREP_NOT_JSON', kind: 'tdmrep.json', severity: 'error', meaning: 'the body is not JSON: the site does not implement the protocol (no rule is read)', spec: TDMREP },
  { code: 'TDMREP_NOT_ARRAY', kind: 'tdmrep.json', severity: 'error', meaning: 'the JSON is not an array of rules (the brackets are mandatory even for one rule)', spec: TDMREP },
  { code: 'TDMREP_RULE_NOT_OBJECT', kind: 'tdmrep.json', severity: 'error', meaning: 'an array member is not an object; it is skipped', spec: TDMREP },
  { code: 'TDMREP_LOCATION_MISSING', kind: 'tdmrep.json', severity: 'error', meaning: 'a rule without a string `location` (mandatory): it matches no path', spec: TDMREP },
  { code: 'TDMREP_RESERVATION_MISSING', kind: 'tdmrep.json', severity: 'error', meaning: 'a rule without `tdm-reservation` (mandatory): it reserves nothing', spec: TDMREP },
  { code: 'TDMREP_RESERVATION_INVALID', kind: 'tdmrep.json', severity: 'error', meaning: '`tdm-reservation` is not 0 or 1: the rule reserves nothing', spec: TDMREP },
  { code: 'TDMREP_RESERVATION_STRING', kind: 'tdmrep.json', severity: 'warning', meaning: '`tdm-reservation` written as the string "0" or "1" instead of the number; read as the number', spec: TDMREP },
  { code: 'TDMREP_POLICY_NOT_URL', kind: 'tdmrep.json', severity: 'warning', meaning: '`tdm-policy` is not an absolute http(s) URL; kept as written', spec: TDMREP },
  { code: 'TDMREP_UNKNOWN_PROPERTY', kind: 'tdmrep.json', severity: 'info', meaning: 'a rule has properties other than location, tdm-reservation, tdm-policy (one issue per rule, naming the first five); ignored', spec: TDMREP },
  { code: 'TDMREP_EMPTY', kind: 'tdmrep.json', severity: 'warning', meaning: 'an empty array: no rule, so nothing is reserved', spec: TDMREP },
  { code: 'RSL_NO_RSL_ROOT', kind: 'rsl', severity: 'error', meaning: 'the document has no <rsl> root element (not an RSL licence, or not XML)', spec: `${RSL} <rsl>` },
  { code: 'RSL_WRONG_NAMESPACE', kind: 'rsl', severity: 'warning', meaning: '<rsl> without xmlns="https://rslstandard.org/rsl" (required); read anyway', spec: `${RSL} <rsl>` },
  { code: 'RSL_NO_CONTENT', kind: 'rsl', severity: 'error', meaning: 'no <content> element: the licence covers nothing', spec: `${RSL} <content>` },
  { code: 'RSL_CONTENT_NO_URL', kind: 'rsl', severity: 'error', meaning: '<content> without its required url attribute', spec: `${RSL} <content>` },
  { code: 'RSL_CONTENT_NO_LICENSE', kind: 'rsl', severity: 'warning', meaning: '<content> without a <license> element', spec: `${RSL} <license>` },
  { code: 'RSL_TERM_NO_TYPE', kind: 'rsl', severity: 'warning', meaning: '<permits>/<prohibits> without its type attribute (usage, user, geo); kept with type "unknown"', spec: `${RSL} <permits>` },
  { code: 'RSL_UNKNOWN_TERM_TYPE', kind: 'rsl', severity: 'info', meaning: '<permits>/<prohibits> type other than usage, user, geo; kept as written', spec: `${RSL} <permits>` },
  { code: 'LLMS_NO_TITLE', kind: 'llms.txt', severity: 'error', meaning: 'no H1 heading (`# Title`), the one section the proposal requires: not read as an llms.txt', spec: LLMS },
  { code: 'PAGE_HEAD_CUT', kind: 'home_page', severity: 'warning', meaning: 'the head was still open at the byte cap (--max-bytes home_page=N, 256 KiB by default): what lies past it was not read, so an absent signal is unknown', spec: HTML_HEAD },
  { code: 'PAGE_HEAD_UNCLOSED', kind: 'home_page', severity: 'info', meaning: 'the page ended with its head still open (no </head>, no body element): the whole page was read as its head', spec: HTML_HEAD },
  { code: 'PAGE_CONTENT_USAGE_INVALID', kind: 'home_page', severity: 'warning', meaning: 'the Content-Usage header is not a Structured Fields Dictionary (RFC 9651 §3.2): ignored as a whole', spec: 'draft-ietf-aipref-attach-05 §4' },
  { code: 'LLMS_TITLE_NOT_FIRST', kind: 'llms.txt', severity: 'warning', meaning: 'text before the H1 title (the proposal puts the title first)', spec: LLMS },
];

const byCode = new Map(consentIssueCodes.map((c) => [c.code, c]));

export interface ConsentIssue {
  lineNo: number | null;
  severity: Severity;
  code: string;
  message: string;
  lineText: string | null;
}

/** An issue of a listed code; its severity is the list's. */
export function consentIssue(code: string, message: string, lineNo: number | null = null, lineText: string | null = null): ConsentIssue {
  const c = byCode.get(code);
  if (!c) throw new Error(`unlisted consent issue code ${code}`);
  return { lineNo, severity: c.severity, code, message, lineText };
}
