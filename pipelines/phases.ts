/**
 * The one vocabulary of a run's phases. A checkpoint (run-state.ts) is at one of `PHASES`: a work
 * phase, whose step of the plan (crawl-plan.ts) fills its done set, then `seal` (work done),
 * `compact` (parts sealed) and `commit` (the commit's plan saved). A saved phase has finished every
 * phase before it. What the progress line and the manifest call the phase (`RunStats.phase`) is
 * derived from it (`progressPhase`), and set by the runner only.
 */
export const WORK_PHASES = ['domains', 'apps', 'partners', 'sellers'] as const;
export type WorkPhase = (typeof WORK_PHASES)[number];

export const PHASES = [...WORK_PHASES, 'seal', 'compact', 'commit'] as const;
export type Phase = (typeof PHASES)[number];

export function isWorkPhase(p: Phase): p is WorkPhase {
  return (WORK_PHASES as readonly Phase[]).includes(p);
}

/** The phase a work phase's end leads to (`seal` after the last). */
export function nextPhase(p: WorkPhase): Phase {
  return PHASES[PHASES.indexOf(p) + 1]!;
}

/** Whether a checkpoint at `at` has finished `phase`. */
export function isFinished(phase: WorkPhase, at: Phase): boolean {
  return PHASES.indexOf(at) > PHASES.indexOf(phase);
}

/**
 * The phase as the progress line and the manifest's `counts.phase` say it: `starting` before the
 * first step, the work phase while its step runs, `committing` from the seal to the published
 * snapshot, `done` once its manifest is written.
 */
export type ProgressPhase = 'starting' | WorkPhase | 'committing' | 'done';

export function progressPhase(p: Phase): ProgressPhase {
  return isWorkPhase(p) ? p : 'committing';
}
