import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RunJournal, RunStateError } from '../pipelines/run-journal.js';
import { RUN_STATE_VERSION, type RunState } from '../pipelines/run-state.js';
import { RunStats } from '../pipelines/run-stats.js';
import { Referrals } from '../pipelines/referral-registry.js';

const root = mkdtempSync(path.join(tmpdir(), 'adsnap-journal-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const RUN = '2026-11-27-abcdef012345';
let n = 0;

/** A checkpoint as a run in its partner phase writes it. */
function goodState(): RunState {
  return {
    version: RUN_STATE_VERSION,
    runId: RUN,
    attempt: 1,
    phase: 'partners',
    done: { domains: { prefix: Number.MAX_SAFE_INTEGER, extra: [] }, apps: { prefix: 3, extra: [5, 9] }, partners: { prefix: 0, extra: [] }, sellers: { prefix: 0, extra: [] } },
    partnerList: ['a.test', 'b.test'],
    sellersList: null,
    referrals: new Referrals().toJSON(),
    apps: { devHosts: [['dev.test', { status: 'ok', found: true }]] },
    stats: new RunStats().toJSON(),
    staged: [{ table: 'targets', file: 'targets-1-0001.parquet', rows: 10, bytes: 1234 }],
    pendingAppsBytes: 0,
    inputs: { domains: { sha256: 'a'.repeat(64), bytes: 10, complete: true }, apps: null },
    commit: null,
    manifest: null,
    shardReport: null,
  };
}

/** Opens a journal whose state.json is `state` (an object, or text as it is). */
async function open(state: unknown): Promise<RunJournal> {
  const out = path.join(root, `out${n++}`);
  const dir = path.join(out, '_staging', RUN);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'state.json'), typeof state === 'string' ? state : JSON.stringify(state));
  return RunJournal.open(out, RUN);
}

async function refusal(state: unknown): Promise<RunStateError> {
  const err = await open(state).then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(RunStateError);
  return err as RunStateError;
}

describe('the checkpoint read back', () => {
  it('a state as a run writes it is resumed as it was saved', async () => {
    const state = goodState();
    const journal = await open(state);
    expect(journal.previous).toEqual(state);
    expect(journal.attempt).toBe(2);
  });

  it('a state of another format version stops the run with RUN_STATE_VERSION, naming both versions', async () => {
    for (const version of [1, RUN_STATE_VERSION + 1, '2', undefined]) {
      const err = await refusal({ ...goodState(), version });
      expect(err.code).toBe('RUN_STATE_VERSION');
      expect(err.message).toContain(`not ${RUN_STATE_VERSION}`);
      expect(err.message).toContain('--restart');
    }
  });

  it('a malformed state stops the run with RUN_STATE_INVALID, naming the field that is wrong', async () => {
    const cases: Array<[string, (s: Record<string, any>) => void]> = [
      ['state.referrals.partners[1]', (s) => (s.referrals.partners = ['x.test', 7])],
      ['state.stats.requests', (s) => (s.stats.requests = -1)],
      ['state.apps.devHosts[0][1].status', (s) => (s.apps.devHosts[0][1].status = 'fine')],
      ['state.done.apps', (s) => (s.done.apps = { prefix: 5, extra: [2] })],
      ['state.done.sellers', (s) => delete s.done.sellers],
      ['state.phase', (s) => (s.phase = 'crawling')],
      ['state.staged[0].file', (s) => (s.staged[0].file = '../escape.parquet')],
      ['state.inputs.domains.sha256', (s) => (s.inputs.domains.sha256 = 'abc')],
      ['state.shardReport.stage', (s) => (s.shardReport = { stage: 'later', report: s.referrals })],
      ['state is in a commit phase without a manifest', (s) => (s.phase = 'compact')],
      ['state.manifest.snapshot_date', (s) => ((s.phase = 'compact'), (s.manifest = { run_id: RUN, snapshot_date: '2026-02-30', list: null }))],
      // The commit decides from the manifest's shard whether it completes the night (derived tables for the union).
      ['state.manifest.shard.stage', (s) => ((s.phase = 'compact'), (s.manifest = { run_id: RUN, snapshot_date: '2026-02-03', list: null, shard: { index: 0, count: 2, stage: 'last' } }))],
      ['state.manifest.shard.count', (s) => ((s.phase = 'compact'), (s.manifest = { run_id: RUN, snapshot_date: '2026-02-03', list: null, shard: { index: 0, stage: 'all' } }))],
    ];
    for (const [where, spoil] of cases) {
      const s = goodState() as unknown as Record<string, any>;
      spoil(s);
      const err = await refusal(s);
      expect(err.code).toBe('RUN_STATE_INVALID');
      expect(err.message).toContain(where);
    }
  });

  it('text that is not a JSON object, or a state of another run, is refused too', async () => {
    expect((await refusal('{"version": 2,')).message).toContain('is not JSON');
    expect((await refusal('[]')).code).toBe('RUN_STATE_VERSION');
    expect((await refusal({ ...goodState(), runId: 'other' })).message).toContain('belongs to run "other"');
  });
});
