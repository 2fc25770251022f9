import { normalizeCountry } from './countries.js';
import { isRegistrable, normalizeDomain } from './domain-check.js';
import type { AdsTxtIssueCode } from './issue-codes.js';
import type { AdsFileKind, AdsVariable, DeclaredDomain } from './types.js';

/** How the rules report an issue on the current line. */
export type LineIssueSink = (code: AdsTxtIssueCode, message: string) => void;

// ads.txt 1.1 §3.5.1: the variables the spec defines; any other name is kept with an info issue.
const KNOWN = new Set(['CONTACT', 'SUBDOMAIN', 'INVENTORYPARTNERDOMAIN', 'OWNERDOMAIN', 'MANAGERDOMAIN']);

/**
 * Meaning of variable lines (ads.txt 1.1 §3.5, app-ads.txt 1.0), with the little state the
 * rules need across lines: the first OWNERDOMAIN, the MANAGERDOMAIN scopes seen, and the
 * referral lists for the summary.
 */
export class VariableRules {
  ownerDomain: string | null = null;
  readonly subdomains: DeclaredDomain[] = [];
  readonly inventoryPartnerDomains: DeclaredDomain[] = [];

  private ownerSeen = false;
  private readonly managerScopes = new Set<string>(); // '' = global, else country code
  private referralCapReported = false;

  constructor(
    private readonly fileKind: AdsFileKind,
    private readonly maxReferrals: number,
  ) {}

  /** Builds the variable for one `NAME=VALUE` line; `name` is upper-cased, `value` trimmed. */
  interpret(lineNo: number, name: string, value: string, issue: LineIssueSink): AdsVariable {
    const v: AdsVariable = { lineNo, name, value, valueDomain: null, valueCountry: null };
    if (!KNOWN.has(name)) {
      issue('UNKNOWN_VARIABLE', `variable ${name} is not one of ads.txt 1.1 §3.5.1; kept`);
      if (value === '') issue('EMPTY_VARIABLE_VALUE', `${name} has an empty value`);
      return v;
    }
    if (value === '') {
      issue('EMPTY_VARIABLE_VALUE', `${name} has an empty value`);
      return v;
    }
    if (name === 'CONTACT') return v;
    if (name === 'MANAGERDOMAIN') return this.manager(v, issue);

    v.valueDomain = this.domain(name, value, issue);
    if (name === 'SUBDOMAIN') {
      // app-ads.txt 1.0: "the subdomain directive is unused in app-ads.txt files and should be ignored".
      if (this.fileKind === 'app-ads.txt') issue('SUBDOMAIN_IN_APP_ADS', 'SUBDOMAIN is ignored in app-ads.txt (app-ads.txt 1.0)');
      else if (v.valueDomain !== null) this.refer(this.subdomains, lineNo, v.valueDomain, name, issue);
    } else if (name === 'INVENTORYPARTNERDOMAIN') {
      if (v.valueDomain !== null) this.refer(this.inventoryPartnerDomains, lineNo, v.valueDomain, name, issue);
    } else {
      // OWNERDOMAIN — ads.txt 1.1 §3.5.1: "if multiple instances are included, only the first should be used".
      if (this.ownerSeen) {
        issue('DUPLICATE_OWNERDOMAIN', `OWNERDOMAIN already declared${this.ownerDomain ? ` as ${this.ownerDomain}` : ''}; only the first counts`);
      } else {
        this.ownerSeen = true;
        this.ownerDomain = v.valueDomain;
      }
      if (v.valueDomain !== null && !isRegistrable(v.valueDomain)) {
        issue('NOT_REGISTRABLE_DOMAIN', `OWNERDOMAIN ${v.valueDomain} is not a registrable domain (PSL+1)`);
      }
    }
    return v;
  }

  /** ads.txt 1.1 §3.5.1 MANAGERDOMAIN: `domain[, CC]`; at most one global and one per country. */
  private manager(v: AdsVariable, issue: LineIssueSink): AdsVariable {
    const parts = v.value.split(',');
    v.valueDomain = this.domain('MANAGERDOMAIN', parts[0]!.trim(), issue);
    const ccRaw = parts.length > 1 ? parts[1]!.trim() : '';
    if (parts.length > 2 && parts.slice(2).some((p) => p.trim() !== '')) {
      issue('EXTRA_FIELDS', 'MANAGERDOMAIN takes `domain[, country]`; extra fields dropped');
    }
    let scope = '';
    if (ccRaw !== '') {
      v.valueCountry = normalizeCountry(ccRaw);
      if (v.valueCountry === null) {
        issue('INVALID_COUNTRY', `MANAGERDOMAIN country ${JSON.stringify(ccRaw)} is not an ISO 3166-1 alpha-2 code`);
        scope = '?' + ccRaw.toUpperCase();
      } else {
        scope = v.valueCountry;
      }
    }
    if (v.valueDomain !== null) {
      if (!isRegistrable(v.valueDomain)) issue('NOT_REGISTRABLE_DOMAIN', `MANAGERDOMAIN ${v.valueDomain} is not a registrable domain (PSL+1)`);
      if (this.managerScopes.has(scope)) {
        issue('DUPLICATE_MANAGERDOMAIN', scope === '' ? 'a second global MANAGERDOMAIN; only the first counts' : `a second MANAGERDOMAIN for ${scope}; only the first counts`);
      } else if (this.managerScopes.size < 512) {
        this.managerScopes.add(scope); // bounded: ~250 countries plus a few invalid ones
      }
    }
    return v;
  }

  private domain(name: string, raw: string, issue: LineIssueSink): string | null {
    const d = normalizeDomain(raw);
    if (d === null) issue('INVALID_VARIABLE_DOMAIN', `${name} value ${JSON.stringify(clip(raw))} is not a valid domain name`);
    return d;
  }

  private refer(list: DeclaredDomain[], lineNo: number, domain: string, name: string, issue: LineIssueSink): void {
    if (list.length < this.maxReferrals) {
      list.push({ lineNo, domain });
    } else if (!this.referralCapReported) {
      this.referralCapReported = true;
      issue('TOO_MANY_REFERRALS', `more than ${this.maxReferrals} ${name} lines; this and later referrals are not followed`);
    }
  }
}

function clip(s: string): string {
  return s.length > 80 ? s.slice(0, 80) + '…' : s;
}
