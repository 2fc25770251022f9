import { describe, expect, it } from 'vitest';
import { PLAN, runPlan, runsStep, STAGE_ROLES, type StageName, type Step } from '../pipelines/crawl-plan.js';
import type { CrawlRun } from '../pipelines/crawl-run.js';
import { PHASES, WORK_PHASES, type Phase } from '../pipelines/phases.js';
import { RunStats } from '../pipelines/run-stats.js';
import { STAGES, type Stage } from '../pipelines/shard-exchange.js';

/** The steps an attempt of `stage` runs, its saved state being at `phase`. */
const steps = (stage: StageName, phase: Phase = 'domains') => PLAN.filter((s) => runsStep(s, stage, phase));
const order = (s: Step) => PHASES.indexOf(s.phase);
/** The stages every shard runs (the last, `intermediaries`, is shard 0's alone and only goes on with the sellers rounds). */
const EVERY_SHARD: Stage[] = ['targets', 'referrals', 'sellers'];

describe('the crawl plan', () => {
  it('an unsharded crawl runs a step for every work phase, in phase order', () => {
    const run = steps('all');
    expect(new Set(run.map((s) => s.phase))).toEqual(new Set(WORK_PHASES));
    expect(run.map(order)).toEqual([...run.map(order)].sort((a, b) => a - b));
  });

  it('the stages every shard runs share the work out: each step of the plan in one of them, the earlier phases first', () => {
    for (const step of PLAN) expect(EVERY_SHARD.filter((st) => runsStep(step, st, 'domains'))).toHaveLength(1);
    for (let i = 1; i < EVERY_SHARD.length; i++) {
      const before = Math.max(...steps(EVERY_SHARD[i - 1]!).map(order));
      expect(Math.min(...steps(EVERY_SHARD[i]!).map(order))).toBeGreaterThanOrEqual(before);
    }
    // The intermediaries stage goes on with the sellers phase only.
    expect(new Set(steps('intermediaries').map((s) => s.phase))).toEqual(new Set(['sellers']));
  });

  it('a sharded stage reads the reports of the stage before it, and the last one tells nobody', () => {
    expect(STAGES.map((st) => STAGE_ROLES[st].learnsFrom)).toEqual([null, ...STAGES.slice(0, -1)]);
    expect(STAGES.map((st) => STAGE_ROLES[st].tellsNext)).toEqual([...STAGES.slice(1).map(() => true), false]);
    expect(STAGE_ROLES.all).toMatchObject({ learnsFrom: null, tellsNext: false });
  });

  it('a resumed attempt runs the steps a fresh one would, but those of phases its saved state finished', () => {
    for (const stage of ['all', ...STAGES] as const) {
      const fresh = steps(stage);
      for (const phase of PHASES) {
        const resumed = steps(stage, phase);
        expect(resumed.every((s) => fresh.includes(s) && order(s) >= PHASES.indexOf(phase))).toBe(true);
        expect(fresh.filter((s) => order(s) >= PHASES.indexOf(phase))).toEqual(resumed);
      }
      // Sealed: nothing is left but the commit.
      expect(steps(stage, 'seal')).toEqual([]);
    }
  });
});

describe('the runner', () => {
  /** A run as far as the runner reads it before the commit, resumed at `phase`. */
  const fakeRun = (phase: Phase, stage: StageName = 'all') => {
    const stats = new RunStats();
    const run = {
      setup: { stage, shard: null, journal: { remove: async () => {} } },
      state: { phase },
      stats,
      ctx: { signal: new AbortController().signal },
      writer: { abort: async () => {} },
      resumed: true,
      openIncremental: async () => {},
      closeInputs: async () => {},
    };
    return { run: run as unknown as CrawlRun, stats };
  };
  const STOP = new Error('stop before the commit');

  it('runs each unfinished step of its stage with the phase the progress line shows set from the plan, and the skipped hook of the others', async () => {
    const { run, stats } = fakeRun('apps');
    const seen: string[] = [];
    const record = (name: string, phase: Step['phase'], skipped: boolean): Step => ({
      name,
      phase,
      stages: ['all'],
      run: async () => void seen.push(`${name} in ${stats.phase}`),
      skipped: skipped ? async () => void seen.push(`${name} skipped in ${stats.phase}`) : null,
    });
    const plan: Step[] = [
      record('a', 'domains', true),
      record('b', 'domains', false),
      record('c', 'apps', false),
      { ...record('other stage', 'partners', false), stages: ['referrals'] },
      { ...record('d', 'sellers', false), run: async () => { seen.push(`d in ${stats.phase}`); throw STOP; } },
    ];
    await expect(runPlan(run, plan)).rejects.toBe(STOP);
    expect(seen).toEqual(['a skipped in domains', 'c in apps', 'd in sellers']);
  });
});
