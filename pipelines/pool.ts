/**
 * Runs `work` over an async iterable with at most `concurrency` items in flight. Items are
 * pulled only when a slot is free, so a slow consumer (the Parquet writer pushing back through
 * `work`) slows the reader: the list is never read ahead of the crawl.
 */
export async function runPool<T>(
  items: AsyncIterable<T> | Iterable<T>,
  concurrency: number,
  work: (item: T) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  const it = (Symbol.asyncIterator in items ? (items as AsyncIterable<T>)[Symbol.asyncIterator]() : toAsync(items as Iterable<T>));
  let failed: unknown = null;
  let done = false;
  // Pulls are serialised: an async iterator must not be asked for its next item concurrently.
  let pulling: Promise<unknown> = Promise.resolve();
  const next = (): Promise<IteratorResult<T>> => {
    const p = pulling.then(() => (done ? { done: true as const, value: undefined } : it.next()));
    pulling = p.catch(() => undefined);
    return p;
  };
  const lane = async () => {
    while (!done && failed === null && !signal?.aborted) {
      const r = await next();
      if (r.done) {
        done = true;
        return;
      }
      try {
        await work(r.value);
      } catch (err) {
        failed ??= err;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, concurrency) }, lane));
  } finally {
    if (!done) await it.return?.();
  }
  if (failed !== null) throw failed;
}

async function* toAsync<T>(items: Iterable<T>): AsyncGenerator<T> {
  yield* items;
}
