/**
 * Golden files: each data-samples/robots/<name>.txt beside the `adsnap parse` events it must
 * give (<name>.expected.ndjson) and its default robots_verdicts rows (<name>.verdicts.tsv).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { kind } from '../src/cli/parse-kinds/robots.js';
import { parseRobotsTxt, rulesPolicy, verdicts } from '../src/parse/robots/index.js';
import { repoRoot } from './helpers/corpus.js';

const dir = path.join(repoRoot, 'data-samples/robots');
const samples = readdirSync(dir).filter((f) => f.endsWith('.txt')).map((f) => f.slice(0, -4));

async function* chunks(bytes: Uint8Array, size: number): AsyncIterable<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

describe('data-samples/robots', () => {
  it('has samples', () => expect(samples.length).toBeGreaterThanOrEqual(4));

  it.each(samples)('%s: parse events match the golden NDJSON, whatever the chunking', async (name) => {
    const bytes = readFileSync(path.join(dir, `${name}.txt`));
    const expected = readFileSync(path.join(dir, `${name}.expected.ndjson`), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as unknown);
    for (const size of [1, 5, 1 << 16]) {
      const events: unknown[] = [];
      for await (const e of kind.events(chunks(bytes, size), 'robots.txt')) events.push(e);
      expect(events).toEqual(expected);
    }
  });

  it.each(samples)('%s: default verdicts match the golden TSV', (name) => {
    const txt = parseRobotsTxt(readFileSync(path.join(dir, `${name}.txt`)));
    const rows = verdicts(rulesPolicy(txt)).map((r) => `${r.userAgent}\t${r.path}\t${r.allowed}\t${r.matchedLine ?? ''}`);
    const expected = readFileSync(path.join(dir, `${name}.verdicts.tsv`), 'utf8').split('\n').slice(1, -1);
    expect(rows).toEqual(expected);
  });

  it('the kind refuses other file kinds', async () => {
    const it = kind.events(chunks(new Uint8Array(0), 1), 'ads.txt')[Symbol.asyncIterator]();
    await expect(it.next()).rejects.toThrow(TypeError);
  });
});
