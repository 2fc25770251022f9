/**
 * /.well-known/tdmrep.json, W3C TDM Reservation Protocol (TDMRep), Final Community Group Report
 * 2024-05-10, §3.1 "TDM File on the Origin Server": a JSON array of rules, each with a `location`
 * pattern (robots.txt syntax, `*` and `$`), a `tdm-reservation` of 0 or 1 (both mandatory) and an
 * optional `tdm-policy` URL. "The most specific match is the first in sequence": the first rule
 * whose location matches a path decides for it; a path no rule matches is unset.
 */
import { compilePattern } from '../robots/path-pattern.js';
import { normalisePattern } from '../robots/percent-encoding.js';
import { consentIssue, type ConsentIssue } from './issue-codes.js';

export interface TdmRule {
  /** 1-based position in the array. */
  ruleNo: number;
  location: string | null;
  /** 1 or 0; null when missing or not 0/1. */
  reservation: 0 | 1 | null;
  policy: string | null;
  /** The location matches the path `/` (RFC 9309 §2.2.2 matching, as TDMRep §3.1 asks). */
  matchesRoot: boolean;
}

export interface TdmRep {
  /** 'ok' (an array), 'empty' (an empty body), 'invalid_json' (not JSON, or not an array). */
  status: 'ok' | 'empty' | 'invalid_json';
  rules: TdmRule[];
  issues: ConsentIssue[];
}

const PROPERTIES = new Set(['location', 'tdm-reservation', 'tdm-policy']);

export function parseTdmRep(text: string): TdmRep {
  const issues: ConsentIssue[] = [];
  const body = text.replace(/^\uFEFF/, '');
  if (body.trim() === '') return { status: 'empty', rules: [], issues };
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch (err) {
    issues.push(consentIssue('TDMREP_NOT_JSON', `not JSON: ${(err as Error).message}`));
    return { status: 'invalid_json', rules: [], issues };
  }
  if (!Array.isArray(doc)) {
    issues.push(consentIssue('TDMREP_NOT_ARRAY', `the file is a JSON ${doc === null ? 'null' : typeof doc}, not an array of rules`));
    return { status: 'invalid_json', rules: [], issues };
  }
  if (doc.length === 0) issues.push(consentIssue('TDMREP_EMPTY', 'an empty array: no rule'));
  const rules: TdmRule[] = [];
  doc.forEach((r: unknown, i) => {
    const rule = readRule(r, i + 1, issues);
    if (rule) rules.push(rule);
  });
  return { status: 'ok', rules, issues };
}

function readRule(r: unknown, ruleNo: number, issues: ConsentIssue[]): TdmRule | null {
  const text = ruleText(r);
  const at = (code: string, message: string) => issues.push(consentIssue(code, `rule ${ruleNo}: ${message}`, null, text));
  if (typeof r !== 'object' || r === null || Array.isArray(r)) {
    at('TDMREP_RULE_NOT_OBJECT', 'not an object; skipped');
    return null;
  }
  const o = r as Record<string, unknown>;
  // One issue per rule, naming the first few: a rule of 20,000 keys is not 20,000 rows.
  const unknown = Object.keys(o).filter((k) => !PROPERTIES.has(k));
  if (unknown.length > 0) at('TDMREP_UNKNOWN_PROPERTY', `${unknown.length} propert${unknown.length === 1 ? 'y' : 'ies'} that TDMRep does not define, ignored: ${unknown.slice(0, 5).map((k) => `'${k}'`).join(', ')}${unknown.length > 5 ? ', …' : ''}`);
  const location = typeof o.location === 'string' ? o.location : null;
  if (location === null) at('TDMREP_LOCATION_MISSING', 'no string location: the rule matches no path');
  const policy = o['tdm-policy'] === undefined || o['tdm-policy'] === null ? null : String(o['tdm-policy']);
  if (policy !== null && !isHttpUrl(policy)) at('TDMREP_POLICY_NOT_URL', `tdm-policy '${policy}' is not an absolute http(s) URL`);
  return { ruleNo, location, reservation: reservationOf(o['tdm-reservation'], at), policy, matchesRoot: location !== null && matchesRoot(location) };
}

/** The rule as JSON for `line_text` (at most 256 characters); a member nested too deep to print is named by its type. */
function ruleText(r: unknown): string {
  try {
    return (JSON.stringify(r) ?? String(r)).slice(0, 256);
  } catch {
    return Array.isArray(r) ? '[…]' : typeof r; // RangeError: nesting beyond the stack (JSON.parse has no such limit)
  }
}

function reservationOf(v: unknown, at: (code: string, message: string) => void): 0 | 1 | null {
  if (v === 0 || v === 1) return v;
  if (v === undefined) {
    at('TDMREP_RESERVATION_MISSING', 'no tdm-reservation: the rule reserves nothing');
    return null;
  }
  if (v === '0' || v === '1') {
    at('TDMREP_RESERVATION_STRING', `tdm-reservation is the string "${v}"; read as ${v}`);
    return v === '1' ? 1 : 0;
  }
  at('TDMREP_RESERVATION_INVALID', `tdm-reservation ${JSON.stringify(v)} is not 0 or 1`);
  return null;
}

/** Whether a location pattern matches the path `/`, after RFC 9309 §2.2.2 normalisation. */
export function matchesRoot(location: string): boolean {
  if (location.trim() === '') return false; // an empty pattern names no path (as an empty Disallow, RFC 9309 §2.2.2)
  const octets = Buffer.from(location.trim(), 'utf8').toString('latin1');
  return compilePattern(normalisePattern(octets)).matches('/');
}

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}
