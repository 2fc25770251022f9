/**
 * A compact set of strings, for de-duplicating millions of keys: root domains of a list, listed
 * roots of a crawl, seller ids of a sellers.json.
 * It keeps a 64-bit hash per member (two 32-bit halves in one Uint32Array, open addressing,
 * linear probing), so memory is 8 bytes per slot: ~16 MB for 1M members instead of the
 * ~60–80 MB of a JS `Set<string>` (measured in bench/sources.bench.ts).
 *
 * Trade-off, on purpose: two different strings with the same 64-bit hash count as one. With
 * n members the chance of any such collision is about n² / 2⁶⁵ (≈ 3·10⁻⁸ at 1M, 3·10⁻⁶ at 10M),
 * far below the rate of real list noise; a collision would merely drop one domain as a duplicate.
 */
export class CompactStringSet {
  private slots: Uint32Array;
  private mask: number;
  private count = 0;

  constructor(initialCapacity = 1 << 16) {
    let cap = 1 << 4;
    while (cap < initialCapacity * 2) cap <<= 1;
    this.slots = new Uint32Array(cap * 2);
    this.mask = cap - 1;
  }

  get size(): number {
    return this.count;
  }

  /** Bytes held by the table. */
  get byteLength(): number {
    return this.slots.byteLength;
  }

  /** Adds `key`; returns false when it (or a string with the same 64-bit hash) was already present. */
  add(key: string): boolean {
    hash64(key);
    if (this.insert(H[0]!, H[1]!)) {
      this.count++;
      if (this.count * 10 > (this.mask + 1) * 7) this.grow();
      return true;
    }
    return false;
  }

  has(key: string): boolean {
    hash64(key);
    const a = H[0]!;
    const b = H[1]!;
    const slots = this.slots;
    for (let i = a & this.mask; ; i = (i + 1) & this.mask) {
      const sa = slots[i * 2]!;
      if (sa === 0) return false;
      if (sa === a && slots[i * 2 + 1] === b) return true;
    }
  }

  private insert(a: number, b: number): boolean {
    const slots = this.slots;
    for (let i = a & this.mask; ; i = (i + 1) & this.mask) {
      const sa = slots[i * 2]!;
      if (sa === 0) {
        slots[i * 2] = a;
        slots[i * 2 + 1] = b;
        return true;
      }
      if (sa === a && slots[i * 2 + 1] === b) return false;
    }
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Uint32Array(old.length * 2);
    this.mask = this.mask * 2 + 1;
    for (let i = 0; i < old.length; i += 2) if (old[i] !== 0) this.insert(old[i]!, old[i + 1]!);
  }
}

/**
 * Two independent 32-bit hashes of the UTF-16 code units (FNV-1a and a murmur-style mix), with
 * a final avalanche each. The first half is never 0: 0 marks an empty slot.
 */
const H = new Uint32Array(2); // hash64's result, reused: no allocation per key

function hash64(s: string): void {
  let h1 = 0x811c9dc5;
  let h2 = 0x9747b28c ^ s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 13;
  }
  h1 ^= h1 >>> 16;
  h1 = Math.imul(h1, 0x85ebca6b);
  h1 ^= h1 >>> 13;
  h2 = Math.imul(h2 ^ (h2 >>> 15), 0xc2b2ae35);
  h2 ^= h2 >>> 16;
  H[0] = h1 >>> 0 || 1;
  H[1] = h2 >>> 0;
}
