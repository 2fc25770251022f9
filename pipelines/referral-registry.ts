import { CompactStringSet } from '../src/util/compact-string-set.js';
import { OwnStringSet } from '../src/util/detach.js';
import type { Rows } from './context.js';
import type { ShardReport } from './shard-exchange.js';
import type { RegistryState } from './run-state.js';

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
  /**
   * Domains named by the INTERMEDIARY/BOTH entries of the sellers.json files read so far this
   * night (their host: src/resolve/intermediaries.ts): the next rounds of the sellers phase.
   */
  readonly intermediaries = new OwnStringSet();
  /** Store hosts whose listings were read (sharded runs record their robots.txt in stage 2). */
  readonly storeHosts = new OwnStringSet();
  /** Root domains of the input list: their robots.txt and ads.txt are recorded by the domain job. */
  readonly roots = new CompactStringSet();
  private readonly claimed = new OwnStringSet();
  private readonly robotsClaimed = new OwnStringSet();

  /** `by`: the scope of the work that found it (what is added stays provisional until it commits). */
  addPartner(domain: string, by: Rows): void {
    if (this.partners.has(domain)) return;
    this.partners.add(domain);
    by.note('partners', domain);
  }

  addAdSystem(domain: string, by: Rows): void {
    if (this.adSystems.has(domain)) return;
    this.adSystems.add(domain);
    by.note('adSystems', domain);
  }

  addIntermediary(domain: string, by: Rows): void {
    if (this.intermediaries.has(domain)) return;
    this.intermediaries.add(domain);
    by.note('intermediaries', domain);
  }

  addStoreHost(host: string, by: Rows): void {
    if (this.storeHosts.has(host)) return;
    this.storeHosts.add(host);
    by.note('storeHosts', host);
  }

  /** True the first time a non-root subject's ads.txt is claimed for fetching in this run. */
  claimSubject(subject: string, by: Rows): boolean {
    if (this.isClaimed(subject)) return false;
    this.claimed.add(subject);
    by.note('claimed', subject);
    return true;
  }

  /** True when a subject's ads.txt is a listed root's or was already claimed (does not claim it). */
  isClaimed(subject: string): boolean {
    return this.roots.has(subject) || this.claimed.has(subject);
  }

  /**
   * What a checkpoint keeps (the roots are rebuilt from the list on resume): what was added by
   * work not yet committed (`provisional`, per collection) is left out, as that work is redone.
   */
  toJSON(provisional: ReadonlyMap<string, ReadonlySet<string>> = new Map()) {
    const keep = (name: string, set: Iterable<string>) => {
      const drop = provisional.get(name);
      return drop ? [...set].filter((v) => !drop.has(v)) : [...set];
    };
    return {
      partners: keep('partners', this.partners),
      adSystems: keep('adSystems', this.adSystems),
      claimed: keep('claimed', this.claimed),
      robotsClaimed: keep('robotsClaimed', this.robotsClaimed),
      storeHosts: keep('storeHosts', this.storeHosts),
      intermediaries: keep('intermediaries', this.intermediaries),
      pendingApps: [],
    };
  }

  restore(saved: RegistryState): void {
    this.merge(saved);
  }

  /** What this shard tells the others at the end of a stage (shard-exchange.ts). */
  report(): ShardReport {
    return {
      partners: [...this.partners],
      adSystems: [...this.adSystems],
      claimed: [...this.claimed],
      robotsClaimed: [...this.robotsClaimed],
      storeHosts: [...this.storeHosts],
      intermediaries: [...this.intermediaries],
      pendingApps: [],
    };
  }

  /** Adds what another shard (or an earlier attempt) learnt. */
  merge(r: RegistryState): void {
    for (const p of r.partners) this.partners.add(p);
    for (const a of r.adSystems) this.adSystems.add(a);
    for (const c of r.claimed) this.claimed.add(c);
    for (const h of r.robotsClaimed) this.robotsClaimed.add(h);
    for (const h of r.storeHosts ?? []) this.storeHosts.add(h);
    for (const d of r.intermediaries ?? []) this.intermediaries.add(d);
  }

  /** True when this host's robots.txt has not been recorded yet in this run (and now is claimed). */
  claimRobots(host: string, by: Rows): boolean {
    if (this.roots.has(host) || this.robotsClaimed.has(host)) return false;
    this.robotsClaimed.add(host);
    by.note('robotsClaimed', host);
    return true;
  }
}
