/**
 * 32-bit FNV-1a over UTF-16 code units: cheap, stable across machines and Node versions, and well
 * spread for host names. Shard ownership (shard.ts) and the previous-snapshot index use it.
 */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
