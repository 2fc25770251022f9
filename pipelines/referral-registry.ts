import { CompactStringSet } from '../src/util/compact-string-set.js';
import { OwnStringSet } from '../src/util/detach.js';
import type { ShardReport } from './shard-exchange.js';

/**
 * What the crawl learns on the way and acts on later: partner domains named by
 * inventorypartnerdomain= (fetched once per snapshot in the partner phase, ads.txt 1.1 §4.6),
 * ad-system domains named by records (their sellers.json, in the sellers phase), and which
 * subjects and robots.txt hosts are already recorded, so no `files` row is written twice.
 * Listed roots are kept compactly (8 bytes each); everything else is bounded by the number of
 * distinct referral targets, not by the list size, and kept as its own copies (names cut from a
 * body would otherwise keep that body's text alive for the whole run).
 */
export class Referrals {
  readonly partners = new OwnStringSet();
  readonly adSystems = new OwnStringSet();
  /** Store hosts whose listings were read (sharded runs record their robots.txt in stage 2). */
  readonly storeHosts = new OwnStringSet();
  /** Root domains of the input list: their robots.txt and ads.txt are recorded by the domain job. */
  readonly roots = new CompactStringSet();
  private readonly claimed = new OwnStringSet();
  private readonly robotsClaimed = new OwnStringSet();

  addPartner(domain: string): void {
    this.partners.add(domain);
  }

  /** True the first time a non-root subject's ads.txt is claimed for fetching in this run. */
  claimSubject(subject: string): boolean {
    if (this.isClaimed(subject)) return false;
    this.claimed.add(subject);
    return true;
  }

  /** True when a subject's ads.txt is a listed root's or was already claimed (does not claim it). */
  isClaimed(subject: string): boolean {
    return this.roots.has(subject) || this.claimed.has(subject);
  }

  /** What a checkpoint keeps (the roots are rebuilt from the list on resume). */
  toJSON() {
    return this.report();
  }

  restore(saved: unknown): void {
    this.merge(saved as ShardReport);
  }

  /** What this shard tells the others at the end of a stage (shard-exchange.ts). */
  report(): ShardReport {
    return {
      partners: [...this.partners],
      adSystems: [...this.adSystems],
      claimed: [...this.claimed],
      robotsClaimed: [...this.robotsClaimed],
      storeHosts: [...this.storeHosts],
      pendingApps: [],
    };
  }

  /** Adds what another shard (or an earlier attempt) learnt. */
  merge(r: ShardReport): void {
    for (const p of r.partners) this.partners.add(p);
    for (const a of r.adSystems) this.adSystems.add(a);
    for (const c of r.claimed) this.claimed.add(c);
    for (const h of r.robotsClaimed) this.robotsClaimed.add(h);
    for (const h of r.storeHosts ?? []) this.storeHosts.add(h);
  }

  /** True when this host's robots.txt has not been recorded yet in this run (and now is claimed). */
  claimRobots(host: string): boolean {
    if (this.roots.has(host) || this.robotsClaimed.has(host)) return false;
    this.robotsClaimed.add(host);
    return true;
  }
}
