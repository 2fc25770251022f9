import { describe, expect, it } from 'vitest';
import { allDone, doneCount, DoneTracker, noneDone, runPool, type DoneSet } from '../pipelines/pool.js';

describe('runPool', () => {
  it('never has more than `concurrency` items in flight and never reads ahead', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    let pulled = 0;
    let maxAhead = 0;
    let finished = 0;
    async function* source() {
      for (let i = 0; i < 50; i++) {
        pulled++;
        maxAhead = Math.max(maxAhead, pulled - finished);
        yield i;
      }
    }
    const seen: number[] = [];
    await runPool(source(), 4, async (i) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setImmediate(r));
      seen.push(i);
      inFlight--;
      finished++;
    });
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(maxInFlight).toBe(4);
    expect(maxAhead).toBeLessThanOrEqual(4);
  });

  it('stops pulling after a failure, closes the source and rethrows', async () => {
    let closed = false;
    let pulled = 0;
    async function* source() {
      try {
        for (let i = 0; i < 1000; i++) {
          pulled++;
          yield i;
        }
      } finally {
        closed = true;
      }
    }
    await expect(
      runPool(source(), 2, async (i) => {
        if (i === 3) throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(closed).toBe(true);
    expect(pulled).toBeLessThan(10);
  });
});

describe('runPool checkpoints', () => {
  it('records exactly the items done at the instant, without waiting for the ones in flight', async () => {
    let clock = 0;
    const finished = new Set<number>();
    const inFlight = new Set<number>();
    const checkpoints: { done: DoneSet; finished: Set<number>; inFlight: number }[] = [];
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    const total = await runPool(
      Array.from({ length: 40 }, (_, i) => i),
      5,
      async (i, done) => {
        inFlight.add(i);
        // Item 3 is slow: it stays in flight until item 30 is done, across several checkpoints.
        if (i === 3) await slow;
        else await new Promise((r) => setTimeout(r, 1 + (i % 3)));
        clock += 1;
        inFlight.delete(i);
        finished.add(i);
        done();
        if (i === 30) release();
      },
      {
        checkpointEveryMs: 4,
        now: () => clock,
        onCheckpoint: async (done) => {
          checkpoints.push({ done, finished: new Set(finished), inFlight: inFlight.size });
        },
      },
    );
    expect(total).toBe(40);
    const whileSlow = checkpoints.filter((c) => !c.finished.has(3));
    expect(whileSlow.length).toBeGreaterThan(1);
    for (const c of checkpoints) {
      const tracker = new DoneTracker(c.done);
      // Exactly the items finished at the checkpoint are done: no more, no fewer.
      for (let i = 0; i < 40; i++) expect(tracker.has(i), `item ${i}`).toBe(c.finished.has(i));
    }
    // The slow item never held the others up: checkpoints were taken with items in flight.
    expect(whileSlow.some((c) => c.inFlight > 0 && c.done.prefix === 3 && c.done.extra.length > 0)).toBe(true);
  });

  it('skips the items an earlier attempt finished', async () => {
    const seen: number[] = [];
    const total = await runPool(Array.from({ length: 10 }, (_, i) => i), 3, async (i) => void seen.push(i), { skip: { prefix: 4, extra: [6, 9] } });
    expect(seen.sort((a, b) => a - b)).toEqual([4, 5, 7, 8]);
    expect(total).toBe(10);
  });
});

describe('doneCount', () => {
  it('counts the done items among the first `total`, a phase list of that length', () => {
    const d: DoneSet = { prefix: 3, extra: [5, 9] };
    expect(doneCount(d, 10)).toBe(5);
    expect(doneCount(d, 6)).toBe(4); // 9 is beyond a list of 6
    expect(doneCount(d, 2)).toBe(2); // a prefix longer than the list counts the list
    expect(doneCount(noneDone(), 7)).toBe(0);
    expect(doneCount(allDone(), 7)).toBe(7);
  });
});
