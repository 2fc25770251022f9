import { describe, expect, it } from 'vitest';
import { runPool } from '../pipelines/pool.js';

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
  it('drains the items in flight before each checkpoint, and reports how many are done', async () => {
    let clock = 0;
    let inFlight = 0;
    const seen: number[] = [];
    const checkpoints: { n: number; inFlight: number; seen: number }[] = [];
    const total = await runPool(
      Array.from({ length: 40 }, (_, i) => i),
      5,
      async (i) => {
        inFlight++;
        await new Promise((r) => setTimeout(r, 1 + (i % 3)));
        clock += 1;
        seen.push(i);
        inFlight--;
      },
      {
        checkpointEveryMs: 10,
        now: () => clock,
        onCheckpoint: async (n) => {
          checkpoints.push({ n, inFlight, seen: seen.length });
        },
      },
    );
    expect(total).toBe(40);
    expect(checkpoints.length).toBeGreaterThan(1);
    for (const c of checkpoints) {
      expect(c.inFlight).toBe(0); // nothing in flight during a checkpoint
      expect(c.seen).toBe(c.n); // exactly the first n items are complete
    }
  });
});
