/**
 * Golden files: every `data-samples/adstxt/<name>.txt` is parsed as `adsnap parse` would
 * (kind guessed from the name, events as NDJSON) and compared with `<name>.ndjson` beside it.
 * After a deliberate change, regenerate with `UPDATE_GOLDEN=1 npx vitest run test/adstxt-golden.test.ts`
 * and review the diff.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { guessKind } from '../src/cli/commands/parse.js';
import { kind } from '../src/cli/parse-kinds/adstxt.js';
import { repoRoot } from './helpers/corpus.js';

const dir = path.join(repoRoot, 'data-samples', 'adstxt');
const inputs = readdirSync(dir).filter((f) => f.endsWith('.txt'));

async function* chunks(bytes: Uint8Array, size: number) {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function ndjson(file: string): Promise<string> {
  const bytes = readFileSync(path.join(dir, file));
  let out = '';
  // Small chunks on purpose: the golden output must not depend on where chunks end.
  for await (const ev of kind.events(chunks(bytes, 7), guessKind(file))) out += JSON.stringify(ev) + '\n';
  return out;
}

describe('golden files (data-samples/adstxt)', () => {
  it('has samples', () => {
    expect(inputs.length).toBeGreaterThanOrEqual(10);
  });

  for (const file of inputs) {
    it(file, async () => {
      const expectedPath = path.join(dir, file.replace(/\.txt$/, '.ndjson'));
      const actual = await ndjson(file);
      if (process.env.UPDATE_GOLDEN === '1') writeFileSync(expectedPath, actual);
      expect(existsSync(expectedPath), `missing ${path.basename(expectedPath)}`).toBe(true);
      expect(actual).toBe(readFileSync(expectedPath, 'utf8'));
    });
  }
});
