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
