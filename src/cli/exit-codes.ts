/**
 * The exit status of every command, so that a scheduler can tell "retry later" from "never
 * retry" (contract §5; docs/reference/cli.md#exit-status, written from EXIT_MEANINGS):
 * - 0 done, or already complete;
 * - 1 the run failed (the message says why; a crawl resumes from its checkpoint when run again);
 * - 2 a usage or configuration error, found before anything was created: running the same command
 *   again cannot succeed;
 * - 75 (EX_TEMPFAIL, sysexits.h) another attempt of the run is alive, or a condition that passes:
 *   run the same command again later.
 */
export const EXIT = { done: 0, failed: 1, usage: 2, tempFail: 75 } as const;

/** What each status means and what to do, for `adsnap --help` and the CLI reference. */
export const EXIT_MEANINGS: readonly (readonly [number, string])[] = [
  [EXIT.done, 'done, or already complete'],
  [EXIT.failed, 'failed (the message says why); a crawl resumes from its checkpoint when run again'],
  [EXIT.usage, 'usage or configuration error, found before anything was created (a ROOT that is no snapshot root included): fix the command or its input'],
  [EXIT.tempFail, 'not now (EX_TEMPFAIL): another attempt of the run is alive, or a condition that passes (a list provider that cannot be reached); run it again later'],
];

/** Errors that are not a failed run, by their stable `code`. */
const STATUS_BY_CODE: Readonly<Record<string, number>> = {
  USAGE: EXIT.usage,
  LIST_EMPTY: EXIT.usage,
  RUN_INPUT_CHANGED: EXIT.usage,
  NOT_A_SNAPSHOT_ROOT: EXIT.usage,
  RUN_LOCKED: EXIT.tempFail,
  RUN_LOCK_LOST: EXIT.tempFail,
  NAMED_LIST_UNREACHABLE: EXIT.tempFail,
  SHARD_STAGE_NOT_READY: EXIT.tempFail,
};

export function exitStatusOf(err: unknown): number {
  const code = (err as { code?: unknown } | null)?.code;
  return (typeof code === 'string' ? STATUS_BY_CODE[code] : undefined) ?? EXIT.failed;
}
