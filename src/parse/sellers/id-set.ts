/**
 * Set of seller ids for duplicate detection, in flat memory: each id is kept as a 64-bit hash
 * (two 32-bit halves) in an open-addressing table of Uint32Arrays, ~11–21 bytes per id
 * instead of ~100 for a Set<string> (a 2M-entry sellers.json stays well under the 200 MB RSS
 * budget). Two different ids collide with probability ~n²/2⁶⁴ (≈1e-7 for 2M ids); a collision
 * would only report one spurious DUPLICATE_SELLER_ID warning.
 */
export class HashedIdSet {
  private table = new Uint32Array(2 * 1024);
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Adds `id`; false when it was already present. */
  add(id: string): boolean {
    // Two independent 32-bit hashes (FNV-1a and a multiplicative one) over UTF-16 code units.
    let h1 = 0x811c9dc5;
    let h2 = 0x9e3779b9 ^ id.length;
    for (let i = 0; i < id.length; i++) {
      const c = id.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995);
      h2 ^= h2 >>> 15;
    }
    h1 = (h1 ^ (h1 >>> 16)) >>> 0;
    h2 = ((h2 ^ (h2 >>> 13)) | 1) >>> 0; // never 0: a zero pair marks an empty slot
    // Linear probing stays short up to 3/4 full.
    if ((this.count + 1) * 4 > (this.table.length / 2) * 3) this.grow();
    return this.insert(h1, h2);
  }

  private insert(h1: number, h2: number): boolean {
    const t = this.table;
    const mask = t.length / 2 - 1;
    let slot = h1 & mask;
    for (;;) {
      const a = t[2 * slot]!;
      const b = t[2 * slot + 1]!;
      if (b === 0) {
        t[2 * slot] = h1;
        t[2 * slot + 1] = h2;
        this.count++;
        return true;
      }
      if (a === h1 && b === h2) return false;
      slot = (slot + 1) & mask;
    }
  }

  private grow(): void {
    const old = this.table;
    this.table = new Uint32Array(old.length * 2);
    this.count = 0;
    for (let i = 0; i < old.length; i += 2) if (old[i + 1] !== 0) this.insert(old[i]!, old[i + 1]!);
  }
}
