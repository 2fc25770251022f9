import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { EXIT } from '../src/cli/exit-codes.js';
import { RUN_LOCK_DEFAULTS } from '../src/store/run-lock.js';
import { repoRoot } from './helpers/corpus.js';

/**
 * The shipped Kubernetes Jobs act on adsnap's exit status: a usage or configuration error (2) fails
 * the index at once, a lock still fresh (75) is retried, and the retries the Job allows outlast the
 * lock's stale bound.
 */
interface Rule {
  action: string;
  onExitCodes?: { containerName?: string; operator: string; values: number[] };
  onPodConditions?: { type: string }[];
}
interface Job {
  kind: string;
  metadata: { name: string };
  spec: {
    completionMode?: string;
    backoffLimit?: number;
    backoffLimitPerIndex?: number;
    podFailurePolicy?: { rules: Rule[] };
    podReplacementPolicy?: string;
    template: { spec: { restartPolicy: string; containers: { name: string; args: string[] }[] } };
  };
}

const file = path.join(repoRoot, 'deploy', 'kubernetes', 'snapshot-jobs.yaml');
const jobs = parseAllDocuments(readFileSync(file, 'utf8')).map((d) => {
  expect(d.errors).toEqual([]);
  return d.toJS() as Job;
});

/** The first rule that matches a container's exit code, as the Job controller reads them (in order). */
function ruleFor(job: Job, code: number): Rule | undefined {
  return job.spec.podFailurePolicy?.rules.find((r) => {
    const e = r.onExitCodes;
    if (!e || (e.containerName && !job.spec.template.spec.containers.some((c) => c.name === e.containerName))) return false;
    return e.operator === 'In' ? e.values.includes(code) : !e.values.includes(code);
  });
}

/** The Job controller's back-off before retry k (1-based): 10 s, doubling, at most 6 minutes. */
const backoffS = (k: number) => Math.min(10 * 2 ** (k - 1), 360);

describe('deploy/kubernetes/snapshot-jobs.yaml', () => {
  it('holds the four stages as Jobs that never restart a container in place', () => {
    expect(jobs.map((j) => j.metadata.name)).toEqual(['targets', 'referrals', 'sellers', 'intermediaries'].map((s) => `adsnap-2026-11-22-${s}`));
    for (const j of jobs) {
      expect(j.kind).toBe('Job');
      // podFailurePolicy requires both; a replacement starts once the failed pod has terminated.
      expect(j.spec.template.spec.restartPolicy, j.metadata.name).toBe('Never');
      expect(j.spec.podReplacementPolicy, j.metadata.name).toBe('Failed');
    }
  });

  it('exit 2 fails the index (the one-pod Job) at once; 75 is retried; evictions do not count', () => {
    for (const j of jobs) {
      const indexed = j.spec.completionMode === 'Indexed';
      expect(ruleFor(j, EXIT.usage)?.action, j.metadata.name).toBe(indexed ? 'FailIndex' : 'FailJob');
      expect(ruleFor(j, EXIT.tempFail)?.action, j.metadata.name).toBe('Count');
      expect(['Count', undefined], j.metadata.name).toContain(ruleFor(j, EXIT.failed)?.action);
      expect(j.spec.podFailurePolicy!.rules.find((r) => r.onPodConditions?.some((c) => c.type === 'DisruptionTarget'))?.action).toBe('Ignore');
    }
  });

  it("the Job's retries outlast the stale bound of a lock whose holder died elsewhere, with one to spare", () => {
    for (const j of jobs) {
      const retries = (j.spec.completionMode === 'Indexed' ? j.spec.backoffLimitPerIndex : j.spec.backoffLimit)!;
      const args = j.spec.template.spec.containers[0]!.args.join(' ');
      const stale = /--lock-stale (\d+)/.exec(args)?.[1];
      const staleS = (stale ? Number(stale) : RUN_LOCK_DEFAULTS.staleMs) / 1000;
      // The lock's age when retry k starts is at least the back-offs before it (pod start-ups only add).
      let k = 1;
      for (let waited = backoffS(1); waited < staleS; waited += backoffS(++k));
      expect(k, j.metadata.name).toBe(2); // 10 s + 20 s ≥ 30 s
      expect(retries, j.metadata.name).toBeGreaterThan(k);
    }
  });
});
