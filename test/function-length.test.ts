import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { functionSpans } from '../scripts/longest-functions.js';

/** The code (src/, pipelines/) is read function by function: none longer than this, and no exception is listed. */
const MAX_LINES = 80;

async function tsFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await tsFiles(p)));
    else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out;
}

describe('function length', () => {
  it('measures each function from its first line to its last, nested ones on their own too', () => {
    const text = ['function outer() {', '  const inner = () => {', '    return 1;', '  };', '  return inner();', '}', 'class C {', '  m(): void {}', '}'].join('\n');
    expect(functionSpans('x.ts', text).map((s) => [s.name, s.line, s.lines])).toEqual([
      ['outer', 1, 6],
      ['inner', 2, 3],
      ['m', 8, 1],
    ]);
  });

  it(`no function in pipelines/ or src/ is longer than ${MAX_LINES} lines`, async () => {
    const root = path.resolve(import.meta.dirname, '..');
    const long = [];
    for (const dir of ['pipelines', 'src']) {
      for (const file of await tsFiles(path.join(root, dir))) {
        for (const s of functionSpans(path.relative(root, file), await readFile(file, 'utf8'))) if (s.lines > MAX_LINES) long.push(`${s.file}:${s.line} ${s.name} (${s.lines} lines)`);
      }
    }
    expect(long).toEqual([]);
  });
});
