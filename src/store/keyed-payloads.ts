/**
 * A compact read-only map from string keys to string payloads, for the previous snapshot's
 * `files` rows (previous-snapshot.ts): a million rows must fit in a few hundred MB and answer a
 * key in microseconds whatever the size. Entries are UTF-8 `key \n payload` records packed into
 * 16 MiB slabs; a sorted array of 32-bit FNV-1a hashes finds them by binary search. Hash
 * collisions are expected (about a hundred per million keys) and resolved by comparing the key
 * stored in the record. About 20 bytes of index per entry plus the record bytes; no object per row.
 */
import { fnv1a } from '../util/hash.js';

const SLAB = 16 * 1024 * 1024;
const NL = 0x0a;

export class KeyedPayloadsBuilder {
  private slabs: Buffer[] = [];
  private slab: Buffer = Buffer.allocUnsafe(SLAB);
  private used = 0;
  private hashes: number[] = [];
  private locs: number[] = [];
  private lens: number[] = [];

  add(key: string, payload: string): void {
    const need = Buffer.byteLength(key) + 1 + Buffer.byteLength(payload);
    if (this.used + need > this.slab.length) {
      this.slabs.push(this.slab.subarray(0, this.used));
      this.slab = Buffer.allocUnsafe(Math.max(SLAB, need));
      this.used = 0;
    }
    const start = this.used;
    this.used += this.slab.write(key, this.used, 'utf8');
    this.slab[this.used++] = NL;
    this.used += this.slab.write(payload, this.used, 'utf8');
    this.hashes.push(fnv1a(key));
    // slab index × 2^32 + offset: exact in a double for any realistic slab count.
    this.locs.push(this.slabs.length * 2 ** 32 + start);
    this.lens.push(need);
  }

  build(): KeyedPayloads {
    // The last slab is copied to its used size so the spare capacity is returned.
    this.slabs.push(Buffer.from(this.slab.subarray(0, this.used)));
    const n = this.hashes.length;
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    const h = this.hashes;
    order.sort((a, b) => h[a]! - h[b]!);
    const hashes = new Uint32Array(n);
    const locs = new Float64Array(n);
    const lens = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      const j = order[i]!;
      hashes[i] = h[j]!;
      locs[i] = this.locs[j]!;
      lens[i] = this.lens[j]!;
    }
    const out = new KeyedPayloads(this.slabs, hashes, locs, lens);
    this.slabs = [];
    this.hashes = [];
    this.locs = [];
    this.lens = [];
    return out;
  }
}

export class KeyedPayloads {
  constructor(
    private readonly slabs: Buffer[],
    private readonly hashes: Uint32Array,
    private readonly locs: Float64Array,
    private readonly lens: Uint32Array,
  ) {}

  get size(): number {
    return this.hashes.length;
  }

  /** Bytes held (records and index). */
  get bytes(): number {
    return this.slabs.reduce((a, s) => a + s.length, 0) + this.hashes.byteLength + this.locs.byteLength + this.lens.byteLength;
  }

  get(key: string): string | null {
    const h = fnv1a(key);
    const hashes = this.hashes;
    let lo = 0;
    let hi = hashes.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (hashes[mid]! < h) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < hashes.length && hashes[i] === h; i++) {
      const rec = this.record(i);
      const nl = rec.indexOf(NL);
      if (rec.toString('utf8', 0, nl) === key) return rec.toString('utf8', nl + 1);
    }
    return null;
  }

  private record(i: number): Buffer {
    const loc = this.locs[i]!;
    const slab = this.slabs[Math.floor(loc / 2 ** 32)]!;
    const start = loc % 2 ** 32;
    return slab.subarray(start, start + this.lens[i]!);
  }
}

