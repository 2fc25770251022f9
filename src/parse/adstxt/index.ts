/**
 * ads.txt / app-ads.txt parsing (ads.txt 1.1 §3–5, app-ads.txt 1.0). The crawl streams bodies
 * through `AdsTxtParser`; `parseAdsTxt` is the convenience call for a whole string or buffer.
 */
import { AdsTxtParser } from './adstxt-parser.js';
import type { AdsRecord, AdsTxtParserOptions, AdsTxtSummary, AdsVariable, ParseIssue } from './types.js';

export { AdsTxtParser } from './adstxt-parser.js';
export { adsTxtIssueCodes, type AdsTxtIssueCode, type IssueCodeInfo } from './issue-codes.js';
export { HTML_LOOKAHEAD } from './html-sniffer.js';
export type {
  AdsFileKind,
  AdsRecord,
  AdsTxtHandler,
  AdsTxtParserOptions,
  AdsTxtStatus,
  AdsTxtSummary,
  AdsVariable,
  DeclaredDomain,
  IssueSeverity,
  ParseIssue,
} from './types.js';

export interface ParsedAdsTxt {
  records: AdsRecord[];
  variables: AdsVariable[];
  issues: ParseIssue[];
  summary: AdsTxtSummary;
}

/** Parses a whole body at once (strings are UTF-8 encoded first, so results match the streaming path). */
export function parseAdsTxt(input: string | Uint8Array, options: AdsTxtParserOptions): ParsedAdsTxt {
  const records: AdsRecord[] = [];
  const variables: AdsVariable[] = [];
  const issues: ParseIssue[] = [];
  const parser = new AdsTxtParser(
    { onRecord: (r) => records.push(r), onVariable: (v) => variables.push(v), onIssue: (i) => issues.push(i) },
    options,
  );
  parser.push(typeof input === 'string' ? new TextEncoder().encode(input) : input);
  return { records, variables, issues, summary: parser.end() };
}
