/**
 * `adsnap parse` for ads.txt and app-ads.txt (contract §1): streams the body through the
 * incremental parser and yields the contract's snake_case events, in file order, summary last.
 */
import { AdsTxtParser, type AdsRecord, type AdsTxtSummary, type AdsVariable, type ParseIssue } from '../../parse/adstxt/index.js';
import { adsRecordColumns, adsVariableColumns } from '../../tables/rows.js';
import type { FileKind, ParseEvent, ParseKind } from './kind.js';

export function recordEvent(r: AdsRecord): ParseEvent {
  return { type: 'record', ...adsRecordColumns(r) };
}

export function variableEvent(v: AdsVariable): ParseEvent {
  return { type: 'variable', ...adsVariableColumns(v) };
}

export function issueEvent(i: ParseIssue): ParseEvent {
  return { type: 'issue', line_no: i.lineNo, severity: i.severity, code: i.code, message: i.message, line_text: i.lineText };
}

export function summaryEvent(s: AdsTxtSummary): ParseEvent {
  return {
    type: 'summary',
    status: s.status,
    records: s.records,
    variables: s.variables,
    errors: s.errors,
    warnings: s.warnings,
    infos: s.infos,
    lines: s.lines,
    bytes: s.bytes,
    owner_domain: s.ownerDomain,
    subdomains: s.subdomains.map((d) => ({ line_no: d.lineNo, domain: d.domain })),
    inventory_partner_domains: s.inventoryPartnerDomains.map((d) => ({ line_no: d.lineNo, domain: d.domain })),
  };
}

export const kind: ParseKind = {
  async *events(body: AsyncIterable<Uint8Array>, fileKind: FileKind): AsyncIterable<ParseEvent> {
    if (fileKind !== 'ads.txt' && fileKind !== 'app-ads.txt') throw new TypeError(`adstxt kind cannot parse ${fileKind}`);
    let queue: ParseEvent[] = [];
    const parser = new AdsTxtParser(
      {
        onRecord: (r) => queue.push(recordEvent(r)),
        onVariable: (v) => queue.push(variableEvent(v)),
        onIssue: (i) => queue.push(issueEvent(i)),
      },
      { fileKind },
    );
    for await (const chunk of body) {
      parser.push(chunk);
      // Yield what this chunk completed before reading more: memory stays bounded by one chunk's events.
      if (queue.length > 0) {
        const out = queue;
        queue = [];
        yield* out;
      }
    }
    const summary = parser.end();
    yield* queue;
    yield summaryEvent(summary);
  },
};
