/**
 * Deterministic randomness for the synthetic web: everything a host serves is a pure function of
 * (seed, host name, purpose), so nothing is stored and a million hosts cost no memory. The hash is
 * FNV-1a with a murmur3 finaliser (fast, well mixed for short strings); the stream is mulberry32.
 */

/** 32-bit hash of a string, mixed with a 32-bit seed. */
export function hash32(s: string, seed = 0): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  // murmur3 fmix32: FNV alone leaves the high bits poorly mixed for short inputs.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Turns a user seed (string or number) into a 32-bit seed. */
export function seedOf(seed: string | number | undefined): number {
  return hash32(String(seed ?? 'adsnap'), 0x5eed);
}

/** A small deterministic random stream (mulberry32). */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Stream for a purpose-tagged key, e.g. `Rng.for(seed, 'ads', host)`. */
  static for(seed: number, ...key: string[]): Rng {
    return new Rng(hash32(key.join('\u0000'), seed));
  }

  /** Uniform in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** Key of a weights object, chosen in proportion to its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const keys = Object.keys(weights) as K[];
    let total = 0;
    for (const k of keys) total += weights[k];
    let r = this.next() * total;
    for (const k of keys) {
      r -= weights[k];
      if (r < 0) return k;
    }
    return keys[keys.length - 1]!;
  }

  /** Hex string of `n` characters. */
  hex(n: number): string {
    let s = '';
    while (s.length < n) s += ((this.next() * 0x100000000) >>> 0).toString(16).padStart(8, '0');
    return s.slice(0, n);
  }
}

/** Cumulative table for fast weighted picks over a long list of [item, weight]. */
export class WeightedTable<T> {
  private readonly items: T[];
  private readonly cumulative: Float64Array;
  constructor(entries: ReadonlyArray<readonly [T, number]>) {
    this.items = entries.map((e) => e[0]);
    this.cumulative = new Float64Array(entries.length);
    let sum = 0;
    entries.forEach((e, i) => (this.cumulative[i] = sum += e[1]));
  }

  pick(rng: Rng): T {
    const r = rng.next() * this.cumulative[this.cumulative.length - 1]!;
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cumulative[mid]! > r) hi = mid;
      else lo = mid + 1;
    }
    return this.items[lo]!;
  }
}

/** Samples a value from a piecewise quantile table [[q, value], …], log-uniform between points. */
export function fromQuantiles(rng: Rng, table: ReadonlyArray<readonly [number, number]>): number {
  const u = rng.next();
  for (let i = 1; i < table.length; i++) {
    const [q1, v1] = table[i]!;
    if (u <= q1) {
      const [q0, v0] = table[i - 1]!;
      const t = (u - q0) / (q1 - q0 || 1);
      return Math.max(1, Math.round(Math.exp(Math.log(v0) + t * (Math.log(v1) - Math.log(v0)))));
    }
  }
  return table[table.length - 1]![1];
}

const ONSETS = ['b', 'c', 'd', 'f', 'g', 'h', 'j', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'z', 'br', 'st', 'tr', 'pl', 'gr', 'sh'];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'io'];

/** A pronounceable lower-case word of 2–4 syllables (letters only: names use `-` as separator). */
export function word(rng: Rng): string {
  const syllables = 2 + rng.int(3);
  let w = '';
  for (let i = 0; i < syllables; i++) w += rng.pick(ONSETS) + rng.pick(VOWELS);
  return w;
}
