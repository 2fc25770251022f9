/**
 * Strings cut from larger text must not keep that text alive where they are kept for long:
 * the writer's row batches, the domain cache, the per-run referral sets (src/util/detach.ts).
 * Each case keeps a 19-character piece of 256 distinct 64 KiB strings (16 MiB in all) and
 * measures what stays on the heap after a full GC.
 */
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { Rows } from '../pipelines/context.js';
import { Referrals } from '../pipelines/referral-registry.js';
import { normalizeDomain } from '../src/parse/adstxt/domain-check.js';
import { openSnapshotWriter } from '../src/sink/index.js';
import { detach, OwnStringSet } from '../src/util/detach.js';
import { useTempDirs } from './helpers/tmp.js';

v8.setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const newDir = useTempDirs('detach');

const PIECES = 256;
const CHUNK = 64 * 1024;

/** A 19-character domain name cut from its own 64 KiB string, as a parser would cut it. */
function piece(i: number): string {
  const chunk = `${'x'.repeat(CHUNK)}\nsite-${String(i).padStart(6, '0')}-abc.com\n`;
  return chunk.slice(CHUNK + 1, CHUNK + 1 + 19);
}

/** MiB still on the heap after `keep` has been handed PIECES pieces and the chunks dropped. */
async function retainedMiB(keep: (s: string, i: number) => unknown): Promise<number> {
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < PIECES; i++) await keep(piece(i), i);
  gc();
  return (process.memoryUsage().heapUsed - before) / 2 ** 20;
}

describe('detach', () => {
  it('returns an equal string', () => {
    for (const s of ['', 'a', 'twelve-chars', 'thirteen-char', piece(7), 'münchen-✓-🙂-and-more']) expect(detach(s)).toBe(s);
  });

  it('keeps only the piece, where the piece itself keeps its whole chunk', async () => {
    const raw: string[] = [];
    const own: string[] = [];
    // The measurement sees the leak it guards against: 16 MiB of chunks.
    expect(await retainedMiB((s) => raw.push(s))).toBeGreaterThan(12);
    expect(await retainedMiB((s) => own.push(detach(s)))).toBeLessThan(2);
    expect(own[5]).toBe(raw[5]);
  });

  it('OwnStringSet stores copies and is still a set', async () => {
    const set = new OwnStringSet();
    expect(await retainedMiB((s) => set.add(s))).toBeLessThan(2);
    expect(set.size).toBe(PIECES);
    set.add(piece(3));
    expect(set.size).toBe(PIECES);
    expect(set.has(piece(3))).toBe(true);
    expect(new OwnStringSet([piece(1), piece(1), piece(2)]).size).toBe(2);
  });
});

describe('long-lived holders keep copies', () => {
  it('the ad-system domain cache', async () => {
    const seen: (string | null)[] = [];
    expect(await retainedMiB((s) => seen.push(normalizeDomain(s)))).toBeLessThan(2);
    expect(seen[9]).toBe('site-000009-abc.com');
  });

  it('the referral sets', async () => {
    const r = new Referrals();
    const by = { note: () => undefined } as unknown as Rows;
    expect(
      await retainedMiB((s, i) => {
        r.addPartner(s, by);
        r.addAdSystem(s, by);
        r.claimSubject(`sub.${s}`, by);
        r.claimRobots(s, by);
        r.addStoreHost(s, by);
        return i;
      }),
    ).toBeLessThan(3);
    expect(r.report().partners).toHaveLength(PIECES);
    expect(r.claimSubject(`sub.${piece(4)}`, by)).toBe(false);
  });

  it("the snapshot writer's row batches", async () => {
    const w = await openSnapshotWriter({ outDir: newDir(), snapshotDate: '2026-11-22', runId: 'detach', tables: ['hops'] });
    try {
      // Fewer rows than a batch: every row stays in the writer's buffer while we measure.
      const mib = await retainedMiB((s, i) => w.write('hops', { from_subject: s, from_file_kind: 'ads.txt', kind: 'inventorypartnerdomain', to_subject: s, outcome: 'followed', reason: null, line_no: i }));
      expect(w.stats().pendingRows).toBe(0);
      expect(mib).toBeLessThan(2);
    } finally {
      await w.abort();
    }
  });
});
