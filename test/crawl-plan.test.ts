import { describe, expect, it } from 'vitest';
import { PLAN, runsStep } from '../pipelines/crawl-plan.js';
import type { Phase } from '../pipelines/run-journal.js';
import type { Stage } from '../pipelines/shard-exchange.js';

/** The names of the steps an attempt of `stage` runs, its saved state being at `phase`. */
const run = (stage: Stage | 'all', phase: Phase = 'domains') => PLAN.filter((s) => runsStep(s, stage, phase)).map((s) => s.name);

describe('the crawl plan', () => {
  it('an unsharded crawl runs every step but the handing-on of apps, in order', () => {
    expect(run('all')).toEqual(['listed sites', 'listed apps', 'partners', 'sellers.json']);
  });

  it('each stage of a sharded snapshot runs its own steps; together they run every step once', () => {
    expect(run('targets')).toEqual(['listed sites', 'listed apps']);
    expect(run('referrals')).toEqual(['handed-on apps', 'partners']);
    expect(run('sellers')).toEqual(['sellers.json']);
    expect(run('intermediaries')).toEqual(['sellers.json']);
    const stages: Stage[] = ['targets', 'referrals', 'sellers'];
    expect(new Set(stages.flatMap((s) => run(s)))).toEqual(new Set(PLAN.map((s) => s.name)));
  });

  it('a resumed attempt runs no step whose phase an earlier attempt finished', () => {
    expect(run('all', 'apps')).toEqual(['listed apps', 'partners', 'sellers.json']);
    expect(run('all', 'partners')).toEqual(['partners', 'sellers.json']);
    expect(run('all', 'sellers')).toEqual(['sellers.json']);
    expect(run('all', 'seal')).toEqual([]);
    expect(run('referrals', 'partners')).toEqual(['partners']);
    expect(run('referrals', 'sellers')).toEqual([]);
    expect(run('targets', 'apps')).toEqual(['listed apps']);
  });

  it('only the listed sites have something to do when not run: the list is read for its roots', () => {
    expect(PLAN.filter((s) => s.skipped).map((s) => s.name)).toEqual(['listed sites']);
  });
});
