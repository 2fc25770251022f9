/**
 * What the crawl learns on the way and acts on later: partner domains named by
 * inventorypartnerdomain= (fetched once per snapshot in the partner phase, ads.txt 1.1 §4.6),
 * ad-system domains named by records (their sellers.json, in the sellers phase), and the
 * non-root subjects already claimed, so no (subject, file_kind) is fetched twice in a run.
 * All three are bounded by the number of distinct referral targets, not by the list size.
 */
export class Referrals {
  readonly partners = new Set<string>();
  readonly adSystems = new Set<string>();
  private readonly claimed = new Set<string>();

  addPartner(domain: string): void {
    this.partners.add(domain);
  }

  /** True the first time a non-root subject is claimed for fetching in this run. */
  claimSubject(subject: string): boolean {
    if (this.claimed.has(subject)) return false;
    this.claimed.add(subject);
    return true;
  }
}
