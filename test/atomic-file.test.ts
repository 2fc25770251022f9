import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { replaceFileAtomically, replaceFileFromStream, temporaryName, writeFileSynced } from '../src/util/atomic-file.js';
import { useTempDirs } from './helpers/tmp.js';

const tempDir = useTempDirs('atomic');

describe('atomic files (src/util/atomic-file.ts)', () => {
  it('replaces a file whole and leaves no temporary file behind', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'state.json');
    writeFileSync(file, '{"old":true}');
    await replaceFileAtomically(file, '{"new":true}', { syncDir: true });
    expect(readFileSync(file, 'utf8')).toBe('{"new":true}');
    expect(readdirSync(dir)).toEqual(['state.json']);
  });

  it('a temporary name sits beside the file, hidden, unique per call, and matches no reader glob', () => {
    const file = path.join('/x', '_runs', 'run-1.json');
    const a = temporaryName(file);
    const b = temporaryName(file);
    expect(a).not.toBe(b);
    expect(path.dirname(a)).toBe(path.dirname(file));
    expect(path.basename(a)).toMatch(/^\.run-1\.json\.[0-9a-f]{12}\.tmp$/);
    // `_runs/*.json` and `state.json` readers never see it: it does not end in .json, and it is hidden.
    expect(path.basename(a).endsWith('.json')).toBe(false);
  });

  it("flag 'wx' refuses a name that exists (the run lock's temporary file is never shared)", async () => {
    const dir = tempDir();
    const file = path.join(dir, 'lock.tmp');
    await writeFileSynced(file, 'first', { flag: 'wx' });
    await expect(writeFileSynced(file, 'second', { flag: 'wx' })).rejects.toMatchObject({ code: 'EEXIST' });
    expect(readFileSync(file, 'utf8')).toBe('first');
  });

  it('a write into a missing directory fails with the file system\'s code and creates nothing', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'missing-dir', 'state.json');
    await expect(replaceFileAtomically(file, 'x')).rejects.toMatchObject({ code: 'ENOENT' });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a file replaced from a stream: whole once the stream ends; the old file untouched and no temporary file left when it fails', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'verdicts.jsonl');
    writeFileSync(file, 'old\n');
    async function* lines(fail: boolean) {
      yield Buffer.from('a\n');
      await new Promise((r) => setTimeout(r, 5));
      // Half-way: the old file is still what a reader sees.
      expect(readFileSync(file, 'utf8')).toBe('old\n');
      if (fail) throw new Error('the query failed');
      yield Buffer.from('b\n');
    }
    await expect(replaceFileFromStream(file, lines(true))).rejects.toThrow('the query failed');
    expect([readFileSync(file, 'utf8'), readdirSync(dir)]).toEqual(['old\n', ['verdicts.jsonl']]);
    await replaceFileFromStream(file, lines(false));
    expect([readFileSync(file, 'utf8'), readdirSync(dir)]).toEqual(['a\nb\n', ['verdicts.jsonl']]);
  });
});
