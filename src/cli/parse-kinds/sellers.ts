import { SellersJsonParser, type Seller, type SellersIssue } from '../../parse/sellers/index.js';
import { sellerRow } from '../../tables/rows.js';
import type { ParseEvent, ParseKind } from './kind.js';

/**
 * `adsnap parse --kind sellers.json` (contract §1): one `seller` event per entry as it is read,
 * then the issues (held back so sellers come first, as the contract orders them; at most
 * `maxIssuesPerCode` per code, so this stays small), then the summary with the file's
 * `version`, `contact_email` and `contact_address`.
 */
export const kind: ParseKind = {
  async *events(body) {
    const sellers: ParseEvent[] = [];
    const issues: ParseEvent[] = [];
    const parser = new SellersJsonParser({
      onSeller: (s) => sellers.push(sellerEvent(s)),
      onIssue: (i) => issues.push(issueEvent(i)),
    });
    for await (const chunk of body) {
      parser.push(chunk);
      if (sellers.length > 0) yield* sellers.splice(0);
    }
    const summary = parser.end();
    yield* sellers.splice(0);
    yield* issues;
    yield {
      type: 'summary',
      status: summary.status,
      sellers: summary.sellers,
      errors: summary.errors,
      warnings: summary.warnings,
      infos: summary.infos,
      version: summary.version,
      contact_email: summary.contactEmail,
      contact_address: summary.contactAddress,
      identifiers: summary.identifiers,
    };
  },
};

function sellerEvent(s: Seller): ParseEvent {
  // The `sellers` table's columns, less the ad system (a parse has none), plus the line.
  const { ad_system_domain: _, ...columns } = sellerRow('', s);
  return { type: 'seller', ...columns, line_no: s.lineNo };
}

function issueEvent(i: SellersIssue): ParseEvent {
  return { type: 'issue', line_no: i.lineNo, severity: i.severity, code: i.code, message: i.message, line_text: i.lineText };
}
