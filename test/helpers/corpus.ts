import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe } from 'vitest';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The shared real-world corpus lives beside the repo (../shared/corpus) and is never copied in.
 * A user's clone has none: corpus tests then skip. ADSNAP_CORPUS overrides the location.
 */
export const corpusDir = process.env.ADSNAP_CORPUS ?? path.resolve(repoRoot, '../shared/corpus');
export const hasCorpus = existsSync(path.join(corpusDir, 'MANIFEST.tsv'));
export const describeWithCorpus = hasCorpus ? describe : describe.skip;
export const corpusPath = (...parts: string[]) => path.join(corpusDir, ...parts);
