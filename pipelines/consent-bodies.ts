import { parseLlmsTxt, parseRsl, parseTdmRep, type ConsentFileKind } from '../src/parse/consent/index.js';
import type { ContentVerdict } from '../src/resolve/file-status.js';
import { emitIssueRows, looksLikeHtml, type IssueCounts } from './body-parsers.js';
import type { Rows } from './context.js';

/**
 * From a consent file's body to rows (docs/reference/ai-signals.md): `tdmrep_rules`,
 * `rsl_licenses`, `llms_txt` and their `parse_issues`, with the file's status. The one place both
 * the crawl (ai-signals-job.ts) and `adsnap reparse` read these files. The bodies are small (a
 * byte cap of 1–4 MiB) and their formats are read whole, so the body is gathered first.
 */
export interface ParsedConsent {
  /** The status and validity of a body read whole (a cut body is `too_large` upstream). */
  verdict: ContentVerdict;
  /** tdmrep.json: rules; rsl: licence rows; llms.txt: links. */
  records: number;
  counts: IssueCounts;
}

export const CONSENT_KINDS: readonly ConsentFileKind[] = ['tdmrep.json', 'llms.txt', 'rsl'];

export function isConsentKind(kind: string): kind is ConsentFileKind {
  return (CONSENT_KINDS as readonly string[]).includes(kind);
}

/** `url`: where the body was read from (rsl_licenses.url). */
export async function parseConsentBody(out: Rows, host: string, kind: ConsentFileKind, url: string, body: AsyncIterable<Uint8Array>): Promise<ParsedConsent> {
  const chunks: Uint8Array[] = [];
  for await (const c of body) chunks.push(c);
  const bytes = Buffer.concat(chunks);
  const text = new TextDecoder('utf-8').decode(bytes);
  if (kind === 'tdmrep.json') return tdmrep(out, host, text);
  if (kind === 'rsl') return rsl(out, host, url, text);
  return llms(out, host, text, bytes.length);
}

function tdmrep(out: Rows, host: string, text: string): ParsedConsent {
  if (text.trim() !== '' && looksLikeHtml(text.slice(0, 4096))) return { verdict: { status: 'html', valid: false }, records: 0, counts: { errors: 0, warnings: 0 } };
  const doc = parseTdmRep(text);
  for (const r of doc.rules) {
    out.emit('tdmrep_rules', { host, rule_no: r.ruleNo, location: r.location, tdm_reservation: r.reservation, tdm_policy: r.policy, matches_root: r.matchesRoot });
  }
  const counts = emitIssueRows(out, host, 'tdmrep.json', doc.issues);
  const valid = doc.status === 'ok' && doc.rules.length > 0 && counts.errors === 0;
  return { verdict: { status: doc.status, valid }, records: doc.rules.length, counts };
}

function rsl(out: Rows, host: string, url: string, text: string): ParsedConsent {
  if (text.trim() === '') return { verdict: { status: 'empty', valid: false }, records: 0, counts: { errors: 0, warnings: 0 } };
  const doc = parseRsl(text);
  // XML is markup too: only a document that is no licence and opens as an HTML page is `html`.
  if (!doc.rsl && /^\s*(?:<!doctype html|<html)/i.test(text)) return { verdict: { status: 'html', valid: false }, records: 0, counts: { errors: 0, warnings: 0 } };
  for (const l of doc.licenses) {
    out.emit('rsl_licenses', { host, url, content_no: l.contentNo, content_url: l.contentUrl, license_no: l.licenseNo, permits: l.permits, prohibits: l.prohibits, payment_type: l.paymentType });
  }
  const counts = emitIssueRows(out, host, 'rsl', doc.issues);
  return { verdict: { status: 'ok', valid: doc.rsl && counts.errors === 0 }, records: doc.licenses.length, counts };
}

function llms(out: Rows, host: string, text: string, bytes: number): ParsedConsent {
  if (text.trim() === '') return { verdict: { status: 'empty', valid: false }, records: 0, counts: { errors: 0, warnings: 0 } };
  const html = looksLikeHtml(text.slice(0, 4096));
  const doc = html ? null : parseLlmsTxt(text);
  const markdown = doc !== null && doc.titled;
  out.emit('llms_txt', { host, markdown, title: doc?.title ?? null, summary: doc?.summary ?? null, sections: doc?.sections ?? 0, links: doc?.links ?? 0, bytes });
  const counts = emitIssueRows(out, host, 'llms.txt', doc?.issues ?? []);
  return { verdict: { status: html ? 'html' : 'ok', valid: markdown }, records: doc?.links ?? 0, counts };
}
