/**
 * Runs `work` over an async iterable with at most `concurrency` items in flight. Items are
 * pulled only when a slot is free, so a slow consumer (the Parquet writer pushing back through
 * `work`) slows the reader: the list is never read ahead of the crawl.
 *
 * Checkpoints (crash-safe resume): every `checkpointEveryMs` the pool calls `onCheckpoint` with
 * the items done so far, *without* waiting for the items in flight: a slow item (a sellers.json
 * that takes minutes) never idles the other lanes. The items in flight are simply not done, and
 * a resumed run redoes them. An item is done when its `work` calls `done()` (synchronously with
 * the writes that make its result durable), or when `work` resolves without having called it.
 */
export interface PoolOptions {
  signal?: AbortSignal;
  /** @default 0 (no checkpoints) */
  checkpointEveryMs?: number;
  /**
   * Called synchronously with the items done at this instant (what a checkpoint records); the
   * pool goes on while the returned promise settles, and starts no other checkpoint meanwhile.
   */
  onCheckpoint?: (done: DoneSet) => Promise<void>;
  /** Items of the input done by an earlier attempt: skipped. @default none */
  skip?: DoneSet;
  /** @default Date.now */
  now?: () => number;
}

/** Which items of a deterministic input are done: the first `prefix`, and `extra` beyond it. */
export interface DoneSet {
  prefix: number;
  extra: number[];
}

/** No item done (a phase not started). */
export function noneDone(): DoneSet {
  return { prefix: 0, extra: [] };
}

/** Every item done (a finished phase), whatever its length. */
export function allDone(): DoneSet {
  return { prefix: Number.MAX_SAFE_INTEGER, extra: [] };
}

/** How many of the first `total` items `d` says are done. */
export function doneCount(d: DoneSet, total: number): number {
  return Math.min(total, d.prefix) + d.extra.filter((i) => i < total).length;
}

/** Tracks done items by index; compact while items finish roughly in order. */
export class DoneTracker {
  private prefix: number;
  private readonly extra: Set<number>;

  constructor(from: DoneSet = { prefix: 0, extra: [] }) {
    this.prefix = from.prefix;
    this.extra = new Set(from.extra);
  }

  has(i: number): boolean {
    return i < this.prefix || this.extra.has(i);
  }

  add(i: number): void {
    if (this.has(i)) return;
    if (i !== this.prefix) {
      this.extra.add(i);
      return;
    }
    this.prefix++;
    while (this.extra.delete(this.prefix)) this.prefix++;
  }

  get count(): number {
    return this.prefix + this.extra.size;
  }

  snapshot(): DoneSet {
    return { prefix: this.prefix, extra: [...this.extra].sort((a, b) => a - b) };
  }
}

/** Returns how many items are done in all (those skipped included). */
export async function runPool<T>(
  items: AsyncIterable<T> | Iterable<T>,
  concurrency: number,
  work: (item: T, done: () => void) => Promise<void>,
  options: PoolOptions | AbortSignal = {},
): Promise<number> {
  const o: PoolOptions = options instanceof AbortSignal ? { signal: options } : options;
  const now = o.now ?? Date.now;
  const it = Symbol.asyncIterator in items ? (items as AsyncIterable<T>)[Symbol.asyncIterator]() : toAsync(items as Iterable<T>);
  const tracker = new DoneTracker(o.skip);
  let failed: unknown = null;
  let exhausted = false;
  let index = 0;
  let checkpointing: Promise<void> | null = null;
  let lastCheckpoint = now();
  const every = o.checkpointEveryMs ?? 0;

  // Pulls are serialised: an async iterator must not be asked for its next item concurrently.
  let pulling: Promise<unknown> = Promise.resolve();
  const next = (): Promise<IteratorResult<{ item: T; i: number }>> => {
    const p = pulling.then(async () => {
      for (;;) {
        if (exhausted) return { done: true as const, value: undefined };
        const r = await it.next();
        if (r.done) return r;
        const i = index++;
        if (!tracker.has(i)) return { done: false as const, value: { item: r.value, i } };
      }
    });
    pulling = p.catch(() => undefined);
    return p;
  };
  const maybeCheckpoint = () => {
    if (checkpointing || !o.onCheckpoint || every <= 0 || now() - lastCheckpoint < every) return;
    lastCheckpoint = now();
    const p = o.onCheckpoint(tracker.snapshot());
    checkpointing = p.then(
      () => {
        checkpointing = null;
        lastCheckpoint = now();
      },
      (err: unknown) => {
        failed ??= err;
        checkpointing = null;
      },
    );
  };
  const lane = async () => {
    while (!exhausted && failed === null && !o.signal?.aborted) {
      maybeCheckpoint();
      const r = await next();
      if (r.done) {
        exhausted = true;
        return;
      }
      let marked = false;
      const done = () => {
        if (!marked) tracker.add(r.value.i);
        marked = true;
      };
      try {
        await work(r.value.item, done);
        done();
      } catch (err) {
        failed ??= err;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, concurrency) }, lane));
    await checkpointing;
  } finally {
    if (!exhausted) await it.return?.();
  }
  if (failed !== null) throw failed;
  return tracker.count;
}

async function* toAsync<T>(items: Iterable<T>): AsyncGenerator<T> {
  yield* items;
}
