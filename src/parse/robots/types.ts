import type { ManagedBlock } from './managed-blocks.js';
/**
 * The data a robots.txt yields (RFC 9309 §2.1–2.2): groups of user-agent lines with their
 * allow/disallow rules, sitemap lines, other records, and what was odd about the file.
 * Everything here is plain data so it can go straight into the robots_* tables.
 */

export type RobotsDirective = 'allow' | 'disallow';

export interface RobotsRule {
  directive: RobotsDirective;
  /** The path pattern as written (UTF-8 decoded, comment and surrounding whitespace removed). */
  path: string;
  lineNo: number;
  /**
   * The pattern the matcher compares, in octets: non-ASCII octets percent-encoded, `%xx`
   * upper-cased, unreserved characters decoded, a literal `$` that is not last written `%24`
   * (RFC 9309 §2.2.2, §2.2.3); a path written without its leading `/` gets one (Google's spec,
   * issue PATH_NOT_ABSOLUTE). Always ASCII.
   */
  pattern: string;
  /**
   * The value as read, in octets: after the comment, the surrounding whitespace and the line's
   * first NUL are cut, nothing else (no leading `/` added, no escaping). Google's reading escapes
   * it its own way when the matcher is compiled with `semantics: 'google'`.
   */
  octets: string;
}

export interface RobotsGroup {
  /** 1-based, in file order. */
  groupNo: number;
  /** The user-agent values as written (trimmed), in file order. */
  userAgents: string[];
  /** Line of the group's first user-agent line. */
  lineNo: number;
  rules: RobotsRule[];
}

export type RobotsIssueSeverity = 'error' | 'warning' | 'info';

export interface RobotsIssue {
  /** null for file-level issues (truncation, encoding, HTML body). */
  lineNo: number | null;
  severity: RobotsIssueSeverity;
  /** Stable code; the list is in docs/reference/parse-issues.md (robots.txt), generated from this parser. */
  code: string;
  message: string;
  /** The offending line, at most 256 characters; null for file-level issues. */
  lineText: string | null;
}

/** 'ok'; 'empty' (no group, sitemap or other record); 'html' (an HTML page served as robots.txt). */
export type RobotsStatus = 'ok' | 'empty' | 'html';

export interface RobotsTxt {
  groups: RobotsGroup[];
  sitemaps: { url: string; lineNo: number }[];
  /** Records other than user-agent/allow/disallow/sitemap (crawl-delay, host, …), key lower-cased. */
  others: { name: string; value: string; lineNo: number }[];
  issues: RobotsIssue[];
  /** Body bytes seen (also beyond the parse limit). */
  bytes: number;
  /** True when the body was longer than the parse limit and the rest was ignored (RFC 9309 §2.5). */
  truncated: boolean;
  /** Lines read (CR, LF and CRLF each end one line; an empty tail after the last line end is not a line). */
  lines: number;
  /** Lines recognised as user-agent, allow, disallow or sitemap (in a group or not). */
  directiveLines: number;
  /** Lines with a `key: value` shape whose key is not one of those four (Google's "unknown directives"). */
  unknownLines: number;
  status: RobotsStatus;
  /** The body was UTF-16 (by its BOM) and decoded; Google's reference reads the octets and finds no rule. */
  utf16: boolean;
  /** Blocks written by a known generator (Cloudflare's managed robots.txt…), by their comment markers. */
  managedBlocks: ManagedBlock[];
}
