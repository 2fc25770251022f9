import { describe, expect, it } from 'vitest';
import { EmptyListError } from '../pipelines/crawl-options.js';
import { RunInputChangedError } from '../pipelines/run-inputs.js';
import { RunStateError } from '../pipelines/run-journal.js';
import { ShardStageNotReadyError } from '../pipelines/shard-exchange.js';
import { EXIT, exitStatusOf } from '../src/cli/exit-codes.js';
import { UsageError } from '../src/cli/usage-error.js';
import { NotASnapshotRootError } from '../src/cli/snapshot-roots.js';
import { NamedListError, NamedListUnreachableError } from '../src/sources/named-lists/index.js';
import { RunLockedError, RunLockLostError } from '../src/store/run-lock.js';

/** Each error the commands meet maps to the status a scheduler acts on (the CLI runs are in run-integrity and crawl-shards). */
describe('exitStatusOf (src/cli/exit-codes.ts)', () => {
  it('usage and configuration errors are 2: running the same command again cannot succeed', () => {
    expect(exitStatusOf(new UsageError('--out DIR is required'))).toBe(EXIT.usage);
    expect(exitStatusOf(new EmptyListError('no accepted entry'))).toBe(EXIT.usage);
    expect(exitStatusOf(new RunInputChangedError('the list changed'))).toBe(EXIT.usage);
    expect(exitStatusOf(new NotASnapshotRootError('photos is not a snapshot root'))).toBe(EXIT.usage);
  });

  it('a live or lost lock and a stage not ready are 75: retry later', () => {
    expect(exitStatusOf(new RunLockedError('/x.lock', { host: 'h', pid: 1, since: 's', token: 't' }))).toBe(EXIT.tempFail);
    expect(exitStatusOf(new RunLockLostError('taken over'))).toBe(EXIT.tempFail);
    expect(exitStatusOf(new ShardStageNotReadyError('not finished'))).toBe(EXIT.tempFail);
    expect(exitStatusOf(new NamedListUnreachableError('tranco:latest: the provider could not be reached'))).toBe(EXIT.tempFail);
  });

  it('anything else is a failed run (1)', () => {
    expect(exitStatusOf(new RunStateError('state.json', 'unreadable'))).toBe(EXIT.failed);
    expect(exitStatusOf(new NamedListError('tranco:id:NOPE1: Tranco has no list with id NOPE1'))).toBe(EXIT.failed);
    expect(exitStatusOf(Object.assign(new Error('disk full'), { code: 'ENOSPC' }))).toBe(EXIT.failed);
    expect(exitStatusOf('a string')).toBe(EXIT.failed);
    expect(exitStatusOf(null)).toBe(EXIT.failed);
    expect(EXIT).toEqual({ done: 0, failed: 1, usage: 2, tempFail: 75 });
  });
});
