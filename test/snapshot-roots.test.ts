import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkSnapshotRoots, NotASnapshotRootError } from '../src/cli/snapshot-roots.js';
import { EXIT, exitStatusOf } from '../src/cli/exit-codes.js';
import { runCli } from './helpers/run-cli.js';
import { useTempDirs } from './helpers/tmp.js';

const tempDir = useTempDirs('roots');

/** The four kinds of path that are no snapshot root, each made in a fresh directory. */
function notRoots(): { kind: string; root: string; says: string }[] {
  const base = tempDir();
  const empty = path.join(base, 'empty');
  mkdirSync(empty);
  const unrelated = path.join(base, 'photos');
  mkdirSync(path.join(unrelated, 'summer'), { recursive: true });
  writeFileSync(path.join(unrelated, 'notes.txt'), 'not a snapshot\n');
  const file = path.join(base, 'list.txt');
  writeFileSync(file, 'example.com\n');
  return [
    { kind: 'a missing path', root: path.join(base, 'typo'), says: 'no such directory' },
    { kind: 'an empty directory', root: empty, says: 'is an empty directory, not a snapshot root' },
    { kind: 'a directory of unrelated files', root: unrelated, says: 'is not a snapshot root: it holds no run manifest (_runs/*.json) and no table adsnap writes' },
    { kind: 'a file', root: file, says: 'is a file, not a snapshot root' },
  ];
}

describe('checkSnapshotRoots (src/cli/snapshot-roots.ts)', () => {
  it('a complete run, a started one, and what is no snapshot root (exit 2)', () => {
    const complete = tempDir();
    mkdirSync(path.join(complete, '_runs'));
    writeFileSync(path.join(complete, '_runs', 'r1.json'), '{}');
    const started = tempDir();
    mkdirSync(path.join(started, '_staging'));
    const tableOnly = tempDir();
    mkdirSync(path.join(tableOnly, 'files'));
    expect(checkSnapshotRoots([complete, started, tableOnly])).toEqual(['complete', 'started', 'started']);
    for (const { root, says } of notRoots()) {
      let err: unknown;
      try {
        checkSnapshotRoots([complete, root]);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(NotASnapshotRootError);
      expect((err as Error).message).toContain(says);
      expect(exitStatusOf(err)).toBe(EXIT.usage);
    }
  });
});

describe('report, sql and reparse on a path that is no snapshot root: exit 2, one line, nothing created', () => {
  for (const command of ['report', 'sql', 'reparse'] as const) {
    it(command, async () => {
      for (const { kind, root, says } of notRoots()) {
        const where = tempDir();
        const out = path.join(where, 'report');
        const args = command === 'sql' ? ['sql', root, '-c', 'SELECT 1'] : [command, root, '--out', out];
        const r = await runCli(args, { cwd: where });
        expect([r.code, r.stdout], kind).toEqual([2, '']);
        expect(r.stderr, kind).toBe(`adsnap ${command}: ${r.stderr.slice(`adsnap ${command}: `.length).split('\n')[0]}\n`);
        expect(r.stderr, kind).toContain(root);
        expect(r.stderr, kind).toContain(says);
        expect(r.stderr, kind).not.toMatch(/\n\s+at /);
        expect(existsSync(out), kind).toBe(false);
        expect(readdirSync(where), kind).toEqual([]);
        if (existsSync(root) && !root.endsWith('.txt')) expect(readdirSync(root).filter((n) => n.startsWith('_')), kind).toEqual([]);
      }
    });
  }
});
