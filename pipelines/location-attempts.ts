/**
 * A file asked at several places in turn (sellers.json: the spec's location, then the locations
 * table's): each place is one attempt whose parsed rows stay in a scope of their own, so that
 * only the attempt the `files` row describes keeps its rows. Every request made stays a
 * `fetches` row whatever happens to its attempt.
 */
import type { FetchOutcome } from '../src/fetch/index.js';
import type { CrawlContext, Rows, RowScope } from './context.js';

/** A CrawlContext whose parsed rows go to `scope`; its fetches rows to the context's own rows. */
export function attemptContext(ctx: CrawlContext, scope: RowScope): CrawlContext {
  const out: Rows = {
    emit: (table, row) => scope.emit(table, row),
    settle: async () => {
      await scope.settle();
      await ctx.out.settle();
    },
    fetches: (outcome: FetchOutcome<unknown>) => ctx.out.fetches(outcome),
    begin: () => scope.begin(),
    note: (collection, value) => scope.note(collection, value),
  };
  return { ...ctx, out };
}

/** Keeps the rows of `chosen` and drops the others'. */
export function settleAttempts<A extends { rows: RowScope }>(attempts: readonly A[], chosen: A): void {
  for (const a of attempts) {
    if (a === chosen) a.rows.commit();
    else a.rows.discard();
  }
}
