/** The items of an async iterable that `keep` accepts, pulled one at a time (no read-ahead). */
export async function* filter<T>(items: AsyncIterable<T>, keep: (item: T) => boolean): AsyncGenerator<T> {
  for await (const item of items) if (keep(item)) yield item;
}
