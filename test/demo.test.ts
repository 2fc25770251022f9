import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderDemoLists } from '../scripts/make-demo-lists.js';
import { repoRoot } from './helpers/corpus.js';

describe('demo sample lists', () => {
  it('data-samples/demo lists name exactly the demo web’s sites and apps (regenerate: npx tsx scripts/make-demo-lists.ts)', async () => {
    const { sites, apps } = await renderDemoLists();
    expect(await readFile(path.join(repoRoot, 'data-samples/demo/top-sites.csv'), 'utf8')).toBe(sites);
    expect(await readFile(path.join(repoRoot, 'data-samples/demo/apps.csv'), 'utf8')).toBe(apps);
  });
});
