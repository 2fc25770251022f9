import { rootDomain } from './domain.js';
import { fnv1a } from './hash.js';

export { fnv1a };

/**
 * Deterministic partition of the crawl for `--shard K/N` (docs/guide/scale.md): every host is owned by one
 * shard, chosen by its registrable domain, so a domain's subdomains, partners and developer hosts
 * on the same root land together, and the union of N shards equals a single-machine run.
 */
export interface Shard {
  /** 0-based, as Kubernetes Indexed Jobs number completions (JOB_COMPLETION_INDEX). */
  index: number;
  count: number;
}

/** Parses `K/N` (0 ≤ K < N). */
export function parseShard(spec: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(spec.trim());
  if (!m) throw new TypeError(`--shard must be K/N (e.g. 0/8), got ${JSON.stringify(spec)}`);
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || index >= count) throw new TypeError(`--shard ${spec}: need 0 ≤ K < N`);
  return { index, count };
}

/** The shard that owns a host (by its registrable domain). */
export function ownerOf(host: string, count: number): number {
  return count === 1 ? 0 : fnv1a(rootDomain(host) ?? host) % count;
}

export function owns(shard: Shard | null, host: string): boolean {
  return shard === null || ownerOf(host, shard.count) === shard.index;
}

/**
 * Whether this shard crawls an app. Apps are spread by their key, not a host: the developer host
 * is known only after the listing is read (the shard owning it follows it, stage 'referrals').
 */
export function ownsApp(shard: Shard | null, appKey: string): boolean {
  return shard === null || fnv1a(appKey) % shard.count === shard.index;
}
