import { BuyersJsonParser, type Buyer } from '../../parse/buyers/index.js';
import { buyerRow } from '../../tables/rows.js';
import type { ParseEvent, ParseKind } from './kind.js';

/**
 * `adsnap parse --kind buyers.json`: one `buyer` event per entry as it is read (the `buyers`
 * table's columns), then the issues, then the summary with the file's header.
 */
export const kind: ParseKind = {
  async *events(body) {
    const buyers: ParseEvent[] = [];
    const issues: ParseEvent[] = [];
    const parser = new BuyersJsonParser({
      onBuyer: (b) => buyers.push(buyerEvent(b)),
      onIssue: (i) => issues.push({ type: 'issue', line_no: i.lineNo, severity: i.severity, code: i.code, message: i.message, line_text: i.lineText }),
    });
    for await (const chunk of body) {
      parser.push(chunk);
      if (buyers.length > 0) yield* buyers.splice(0);
    }
    const s = parser.end();
    yield* buyers.splice(0);
    yield* issues;
    yield { type: 'summary', status: s.status, buyers: s.buyers, errors: s.errors, warnings: s.warnings, version: s.version, contact_email: s.contactEmail, contact_address: s.contactAddress, identifiers: s.identifiers };
  },
};

function buyerEvent(b: Buyer): ParseEvent {
  const { ad_system_domain: _, ...columns } = buyerRow('', b);
  return { type: 'buyer', ...columns, line_no: b.lineNo };
}
