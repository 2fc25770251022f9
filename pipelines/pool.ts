/**
 * Runs `work` over an async iterable with at most `concurrency` items in flight. Items are
 * pulled only when a slot is free, so a slow consumer (the Parquet writer pushing back through
 * `work`) slows the reader: the list is never read ahead of the crawl.
 *
 * Checkpoints (crash-safe resume, issue 7): every `checkpointEveryMs` the pool stops pulling,
 * lets the items in flight finish, and calls `onCheckpoint(n)` with the number of items pulled
 * so far — all of them complete, so the first n items of the input are done. Then it goes on.
 */
export interface PoolOptions {
  signal?: AbortSignal;
  /** @default 0 (no checkpoints) */
  checkpointEveryMs?: number;
  onCheckpoint?: (itemsDone: number) => Promise<void>;
  /** @default Date.now */
  now?: () => number;
}

export async function runPool<T>(
  items: AsyncIterable<T> | Iterable<T>,
  concurrency: number,
  work: (item: T) => Promise<void>,
  options: PoolOptions | AbortSignal = {},
): Promise<number> {
  const o: PoolOptions = options instanceof AbortSignal ? { signal: options } : options;
  const now = o.now ?? Date.now;
  const it = Symbol.asyncIterator in items ? (items as AsyncIterable<T>)[Symbol.asyncIterator]() : toAsync(items as Iterable<T>);
  let failed: unknown = null;
  let done = false;
  let pulled = 0;
  let inFlight = 0;
  let idle: (() => void) | null = null;
  let gate: Promise<void> | null = null;
  let lastCheckpoint = now();
  const every = o.checkpointEveryMs ?? 0;

  // Pulls are serialised: an async iterator must not be asked for its next item concurrently.
  let pulling: Promise<unknown> = Promise.resolve();
  const next = (): Promise<IteratorResult<T>> => {
    const p = pulling.then(() => (done ? { done: true as const, value: undefined } : it.next()));
    pulling = p.catch(() => undefined);
    return p;
  };
  const checkpoint = async () => {
    if (inFlight > 0) await new Promise<void>((r) => (idle = r));
    if (failed === null && !o.signal?.aborted) await o.onCheckpoint!(pulled);
    lastCheckpoint = now();
  };
  const lane = async () => {
    while (!done && failed === null && !o.signal?.aborted) {
      if (gate) {
        await gate;
        continue;
      }
      if (every > 0 && o.onCheckpoint && now() - lastCheckpoint >= every) {
        gate = checkpoint().finally(() => (gate = null));
        await gate;
        continue;
      }
      const r = await next();
      if (r.done) {
        done = true;
        return;
      }
      pulled++;
      inFlight++;
      try {
        await work(r.value);
      } catch (err) {
        failed ??= err;
      } finally {
        inFlight--;
        if (inFlight === 0 && idle) {
          const wake = idle;
          idle = null;
          wake();
        }
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, concurrency) }, lane));
  } finally {
    if (!done) await it.return?.();
  }
  if (failed !== null) throw failed;
  return pulled;
}

async function* toAsync<T>(items: Iterable<T>): AsyncGenerator<T> {
  yield* items;
}
