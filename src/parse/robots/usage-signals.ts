/**
 * Usage preferences written into robots.txt, beside the crawl rules: the rows of the
 * `robots_usage_signals` table. Two syntaxes are read from the records the parser keeps as
 * `others` (so the file's line counts are the parser's, unchanged):
 *
 * - `Content-Signal: search=yes, ai-train=no` — Cloudflare's Content Signals Policy
 *   (contentsignals.org, September 2025): comma-separated `key=value`; keys `search`, `ai-input`,
 *   `ai-train`; values `yes` / `no`; no path.
 * - `Content-Usage: [path] train-ai=n, search=y` — draft-ietf-aipref-attach-05 (19 August 2026), its robots.txt attachment:
 *   an optional path pattern (starting `/` or `*`) then a preference, which is an RFC 9651
 *   Structured Fields Dictionary whose keys are the labels of draft-ietf-aipref-vocab and whose
 *   values are the tokens `y` / `n`. A dictionary that does not parse is ignored as a whole (RFC
 *   9651 §4.2: a parse failure fails the field); unknown keys are kept (the vocabulary ignores
 *   them, they are data here); parameters (`;x=1`) are ignored.
 *
 * Each line applies to the group it stands in (the last group opened on or before it: such
 * records never end a group, RFC 9309 §2.2.4); a line before any user-agent line has no group.
 */
import type { RobotsIssue, RobotsTxt } from './types.js';

export type UsageDirective = 'content-signal' | 'content-usage';

export interface UsageSignal {
  directive: UsageDirective;
  /** The group the line stands in, null before the first user-agent line. */
  groupNo: number | null;
  userAgents: string[];
  /** Content-Usage's path pattern, null when the line has none (the whole site). */
  path: string | null;
  /** Lower-cased key. */
  key: string;
  /** The value as written (trimmed); a dictionary member without `=` is `?1` (RFC 9651 boolean true). */
  value: string;
  lineNo: number;
}

/** Keys of Cloudflare's Content Signals Policy. */
export const CONTENT_SIGNAL_KEYS: readonly string[] = ['search', 'ai-input', 'ai-train'];
/**
 * Labels of draft-ietf-aipref-vocab across its revisions: automated processing (`all`, later
 * `bots`), `train-ai`, `train-genai`, `ai-use`, `search`. Only an info issue depends on it: every
 * key is kept, so a label a later revision adds or renames is never lost.
 */
export const CONTENT_USAGE_KEYS: readonly string[] = ['all', 'bots', 'train-ai', 'train-genai', 'ai-use', 'search'];

export function usageSignals(txt: RobotsTxt): { signals: UsageSignal[]; issues: RobotsIssue[] } {
  const signals: UsageSignal[] = [];
  const issues: RobotsIssue[] = [];
  const groups = txt.groups;
  let g = -1; // others and groups are both in line order: walk them together
  for (const o of txt.others) {
    if (o.name !== 'content-signal' && o.name !== 'content-usage') continue;
    while (g + 1 < groups.length && groups[g + 1]!.lineNo <= o.lineNo) g++;
    const group = g >= 0 ? groups[g]! : null;
    const line = `${o.name}: ${o.value}`;
    const issue = (severity: RobotsIssue['severity'], code: string, message: string) => issues.push({ lineNo: o.lineNo, severity, code, message, lineText: line.slice(0, 256) });
    const at = { groupNo: group?.groupNo ?? null, userAgents: group ? [...group.userAgents] : [], lineNo: o.lineNo };
    if (group === null) issue('warning', 'USAGE_OUTSIDE_GROUP', `${o.name} before any user-agent line: it applies to no group`);
    if (o.name === 'content-signal') contentSignal(o.value, at, signals, issue);
    else contentUsage(o.value, at, signals, issue);
  }
  return { signals, issues };
}

type At = Pick<UsageSignal, 'groupNo' | 'userAgents' | 'lineNo'>;
type Issue = (severity: RobotsIssue['severity'], code: string, message: string) => void;

function contentSignal(value: string, at: At, out: UsageSignal[], issue: Issue): void {
  if (value.trim() === '') {
    issue('warning', 'CONTENT_SIGNAL_EMPTY', 'Content-Signal without a value');
    return;
  }
  for (const raw of value.split(',')) {
    const member = raw.trim();
    const eq = member.indexOf('=');
    const key = (eq < 0 ? member : member.slice(0, eq)).trim().toLowerCase();
    if (eq < 0 || !/^[a-z][a-z0-9_-]*$/.test(key)) {
      issue('warning', 'CONTENT_SIGNAL_INVALID', `'${member}' is not key=value; ignored (Content Signals Policy)`);
      continue;
    }
    const v = member.slice(eq + 1).trim();
    if (v.toLowerCase() !== 'yes' && v.toLowerCase() !== 'no') issue('warning', 'CONTENT_SIGNAL_INVALID_VALUE', `${key}=${v}: the value is 'yes' or 'no'`);
    if (!CONTENT_SIGNAL_KEYS.includes(key)) issue('info', 'CONTENT_SIGNAL_UNKNOWN_KEY', `'${key}' is not a Content Signals key (search, ai-input, ai-train); kept`);
    out.push({ directive: 'content-signal', ...at, userAgents: [...at.userAgents], path: null, key, value: v });
  }
}

function contentUsage(value: string, at: At, out: UsageSignal[], issue: Issue): void {
  let path: string | null = null;
  let rest = value.trim();
  const c0 = rest.charAt(0);
  if (c0 === '/' || c0 === '*') {
    const ws = rest.search(/[ \t]/);
    path = ws < 0 ? rest : rest.slice(0, ws);
    rest = ws < 0 ? '' : rest.slice(ws).trim();
  }
  if (rest === '') {
    issue('warning', 'CONTENT_USAGE_EMPTY', 'Content-Usage without a preference');
    return;
  }
  const members = parseDictionary(rest);
  if (members === null) {
    issue('warning', 'CONTENT_USAGE_INVALID', 'the preference is not a Structured Fields Dictionary (RFC 9651 §3.2); the line is ignored');
    return;
  }
  const seen = new Set<string>();
  for (let i = members.length - 1; i >= 0; i--) {
    const [key] = members[i]!;
    // RFC 9651 §4.2.2: a key given twice keeps its last value.
    if (seen.has(key)) {
      issue('info', 'CONTENT_USAGE_DUPLICATE_KEY', `'${key}' is given twice; the last value counts (RFC 9651 §4.2.2)`);
      members.splice(i, 1);
    }
    seen.add(key);
  }
  for (const [key, v] of members) {
    if (v !== 'y' && v !== 'n') issue('warning', 'CONTENT_USAGE_INVALID_VALUE', `${key}=${v}: a preference is the token y or n (draft-ietf-aipref-vocab); ignored by readers`);
    if (!CONTENT_USAGE_KEYS.includes(key)) issue('info', 'CONTENT_USAGE_UNKNOWN_KEY', `'${key}' is not a label of draft-ietf-aipref-vocab; kept`);
    out.push({ directive: 'content-usage', ...at, userAgents: [...at.userAgents], path, key, value: v });
  }
}

/**
 * RFC 9651 §4.2.2 dictionary, reduced to what preferences use: `key[=bare-item][;params]`
 * members separated by `,` and optional whitespace. Bare items are kept as written (a token, an
 * integer, a quoted string, `?0`/`?1`); inner lists are accepted as written. Null on any syntax
 * error.
 */
export function parseDictionary(s: string): [string, string][] | null {
  const out: [string, string][] = [];
  let i = 0;
  const n = s.length;
  const ws = () => {
    while (i < n && (s[i] === ' ' || s[i] === '\t')) i++;
  };
  ws();
  while (i < n) {
    const key = /^[a-z*][a-z0-9_\-.*]*/.exec(s.slice(i));
    if (!key) return null;
    i += key[0].length;
    let value = '?1';
    if (s[i] === '=') {
      i++;
      const item = /^(?:"(?:[^"\\]|\\["\\])*"|\?[01]|-?[0-9]+(?:\.[0-9]+)?|[A-Za-z*][A-Za-z0-9:/!#$%&'*+\-.^_`|~]*|:[A-Za-z0-9+/=]*:|\([^)]*\))/.exec(s.slice(i));
      if (!item) return null;
      value = item[0];
      i += value.length;
    }
    // Parameters: ;key[=item] — read and dropped (the vocabulary ignores them).
    while (s[i] === ';') {
      i++;
      ws();
      const p = /^[a-z*][a-z0-9_\-.*]*(?:=(?:"(?:[^"\\]|\\["\\])*"|\?[01]|-?[0-9]+(?:\.[0-9]+)?|[A-Za-z*][A-Za-z0-9:/!#$%&'*+\-.^_`|~]*))?/.exec(s.slice(i));
      if (!p) return null;
      i += p[0].length;
    }
    out.push([key[0], value]);
    ws();
    if (i >= n) break;
    if (s[i] !== ',') return null;
    i++;
    ws();
    if (i >= n) return null; // a trailing comma fails the dictionary (§4.2.2)
  }
  return out;
}
