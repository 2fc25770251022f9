/**
 * A small LRU cache bounded by entry count and, optionally, by a total weight (e.g. bytes).
 * Map keeps insertion order, so re-inserting on hit makes the first key the least recently used.
 */
export class Lru<K, V> {
  private readonly map = new Map<K, { value: V; weight: number }>();
  private totalWeight = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxWeight = Infinity,
    private readonly weigh: (value: V) => number = () => 0,
  ) {}

  get size(): number {
    return this.map.size;
  }

  get weight(): number {
    return this.totalWeight;
  }

  get(key: K): V | undefined {
    const e = this.map.get(key);
    if (!e) return undefined;
    this.map.delete(key);
    this.map.set(key, e);
    return e.value;
  }

  set(key: K, value: V): void {
    const old = this.map.get(key);
    if (old) {
      this.totalWeight -= old.weight;
      this.map.delete(key);
    }
    const weight = this.weigh(value);
    // An entry heavier than the whole budget is not cached at all.
    if (weight > this.maxWeight) return;
    this.map.set(key, { value, weight });
    this.totalWeight += weight;
    while (this.map.size > this.maxEntries || this.totalWeight > this.maxWeight) {
      const first = this.map.keys().next();
      if (first.done) break;
      this.totalWeight -= this.map.get(first.value)!.weight;
      this.map.delete(first.value);
    }
  }

  /** Returns the cached value, or computes, caches and returns it. */
  getOrCreate(key: K, make: () => V): V {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const value = make();
    this.set(key, value);
    return value;
  }
}
