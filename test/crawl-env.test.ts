import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { crawlEnv } from '../src/cli/crawl-env.js';
import { UsageError } from '../src/cli/usage-error.js';
import { commitPause } from '../pipelines/run-commit.js';
import { repoRoot } from './helpers/corpus.js';

describe("the crawl's environment, read once at the CLI", () => {
  it('each variable becomes its option; unset ones leave the defaults', () => {
    expect(crawlEnv({})).toEqual({});
    expect(crawlEnv({ ADSNAP_ROW_GROUP_ROWS: '4096', ADSNAP_COMMIT_MEMORY: '256MB', ADSNAP_COMMIT_STEP_DELAY_MS: '2000', ADSNAP_COMMIT_PAUSE_STEPS: 'planned, linked' })).toEqual({
      rowGroupRows: 4096,
      commitMemory: '256MB',
      commitPause: { ms: 2000, steps: ['planned', 'linked'] },
    });
    expect(crawlEnv({ ADSNAP_COMMIT_STEP_DELAY_MS: '0' })).toEqual({});
  });

  it('a bad value is a usage error naming the variable', () => {
    for (const [name, value] of [['ADSNAP_ROW_GROUP_ROWS', 'lots'], ['ADSNAP_ROW_GROUP_ROWS', '0'], ['ADSNAP_COMMIT_MEMORY', '128'], ['ADSNAP_COMMIT_STEP_DELAY_MS', '-5']] as const) {
      expect(() => crawlEnv({ [name]: value })).toThrow(UsageError);
      expect(() => crawlEnv({ [name]: value })).toThrow(name);
    }
  });

  it('the commit drill says each step of the commit on stderr; without it, nothing is said', async () => {
    const said: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((s: string) => (said.push(s), true)) as typeof process.stderr.write;
    try {
      const pause = commitPause({ commitPause: { ms: 1, steps: ['linked'] } });
      await pause('planned');
      await pause('linked');
      await commitPause({})('planned');
    } finally {
      process.stderr.write = write;
    }
    expect(said).toEqual(['adsnap crawl: commit step planned\n', 'adsnap crawl: commit step linked\n']);
  });

  it('nothing below the CLI reads process.env in the crawl and the sink', () => {
    const readers: string[] = [];
    for (const dir of ['pipelines', 'src/sink']) {
      for (const f of readdirSync(path.join(repoRoot, dir)).filter((n) => n.endsWith('.ts'))) {
        if (/process\.env\b/.test(readFileSync(path.join(repoRoot, dir, f), 'utf8'))) readers.push(`${dir}/${f}`);
      }
    }
    expect(readers).toEqual([]);
  });
});
