import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const corpusDir = process.env.ADSNAP_CORPUS ?? path.resolve(repoRoot, '../shared/corpus');
export const hasCorpus = existsSync(path.join(corpusDir, 'MANIFEST.tsv'));
