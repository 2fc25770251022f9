import { isValidDnsName, isWithin } from '../util/domain.js';

/**
 * Which referrals a file's variables lead to (ads.txt 1.1 §4.5, §4.6, §5.5, §5.7; app-ads.txt 1.0).
 * Every referral seen becomes a `hops` row: followed, or ignored with one of these reasons.
 */
export type HopKind = 'subdomain' | 'inventorypartnerdomain' | 'developer_url' | 'developer_url_parent';

export type IgnoreReason =
  | 'not_root_file' // §5.5: only the root domain's ads.txt may declare subdomain=
  | 'outside_root' // §4.5: the subdomain must lie inside the declaring root domain
  | 'same_as_root' // subdomain=<the root itself> adds nothing
  | 'app_ads_txt' // app-ads.txt 1.0: SUBDOMAIN is not used in app-ads.txt
  | 'second_hop' // §4.6/§5.7: a partner's own inventorypartnerdomain is not followed (one hop)
  | 'self_reference' // a file naming its own subject
  | 'invalid_domain'
  | 'invalid_file'; // the declaring file is not usable (html, too large…)

/** The role a file plays in the crawl, which decides what its referrals may do. */
export type FileRole = 'root' | 'subdomain' | 'inventorypartnerdomain' | 'developer_url' | 'developer_url_parent';

export interface HopDecision {
  kind: 'subdomain' | 'inventorypartnerdomain';
  toSubject: string;
  lineNo: number;
  outcome: 'followed' | 'ignored';
  reason: IgnoreReason | null;
}

export interface DeclaringFile {
  subject: string;
  fileKind: 'ads.txt' | 'app-ads.txt';
  role: FileRole;
  /** Root domain (PSL+1) of the subject. */
  root: string;
  subdomains: readonly { lineNo: number; domain: string }[];
  inventoryPartnerDomains: readonly { lineNo: number; domain: string }[];
}

export function decideHops(file: DeclaringFile): HopDecision[] {
  const out: HopDecision[] = [];
  for (const { lineNo, domain } of file.subdomains) {
    out.push({ kind: 'subdomain', toSubject: domain, lineNo, ...subdomainVerdict(file, domain) });
  }
  for (const { lineNo, domain } of file.inventoryPartnerDomains) {
    out.push({ kind: 'inventorypartnerdomain', toSubject: domain, lineNo, ...partnerVerdict(file, domain) });
  }
  return out;
}

function subdomainVerdict(file: DeclaringFile, domain: string): Pick<HopDecision, 'outcome' | 'reason'> {
  if (file.fileKind === 'app-ads.txt') return ignored('app_ads_txt');
  if (!isValidDnsName(domain)) return ignored('invalid_domain');
  if (file.role !== 'root') return ignored('not_root_file');
  if (domain === file.root) return ignored('same_as_root');
  if (!isWithin(domain, file.root)) return ignored('outside_root');
  return followed();
}

function partnerVerdict(file: DeclaringFile, domain: string): Pick<HopDecision, 'outcome' | 'reason'> {
  if (!isValidDnsName(domain)) return ignored('invalid_domain');
  if (file.role === 'inventorypartnerdomain') return ignored('second_hop');
  if (domain === file.subject) return ignored('self_reference');
  return followed();
}

const ignored = (reason: IgnoreReason) => ({ outcome: 'ignored' as const, reason });
const followed = () => ({ outcome: 'followed' as const, reason: null });
