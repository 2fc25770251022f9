import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/corpus.js';
import { useTempDirs } from './helpers/tmp.js';

/**
 * The layers of docs/design.md, kept by dependency-cruiser with the rules in
 * .dependency-cruiser.cjs: the code breaks none, and each rule catches what it is there for
 * (a fixture tree with one violation of each).
 */
const tempDir = useTempDirs('layers');
const RULES = path.join(repoRoot, '.dependency-cruiser.cjs');
const DEPCRUISE = path.join(repoRoot, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

interface Violation {
  from: string;
  to: string;
  rule: { name: string; severity: string };
}

function cruise(cwd: string, roots: string[]): Violation[] {
  const r = spawnSync(process.execPath, [DEPCRUISE, '--config', RULES, '--output-type', 'json', '--no-progress', ...roots], { cwd, encoding: 'utf8', timeout: 180_000, maxBuffer: 256 * 1024 * 1024 });
  expect(r.stdout, r.stderr).not.toBe('');
  const result = JSON.parse(r.stdout) as { summary: { violations: Violation[]; totalCruised: number } };
  expect(result.summary.totalCruised).toBeGreaterThan(0);
  return result.summary.violations;
}

const said = (vs: Violation[]) => vs.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);

describe('the layers (.dependency-cruiser.cjs)', () => {
  it('the code breaks no rule', () => {
    expect(said(cruise(repoRoot, ['src', 'pipelines', 'schemas']))).toEqual([]);
  }, 200_000);

  it('each rule catches its violation, and a lazy import of the narrow entry is allowed', () => {
    const dir = tempDir();
    const files: Record<string, string> = {
      'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true }, include: ['src', 'pipelines'] }),
      'package.json': JSON.stringify({ name: 'fixture', type: 'module', dependencies: { '@duckdb/node-api': '*' } }),
      'src/fetch/fetcher.ts': 'export const fetched = 1;\n',
      'src/parse/parser.ts': "import { fetched } from '../fetch/fetcher.js';\nexport const parsed = fetched;\n",
      'src/util/helper.ts': "import { DuckDBInstance } from '@duckdb/node-api';\nexport const helper = DuckDBInstance;\n",
      'src/sink/writer.ts': "import { web } from '../simweb/web.js';\nexport const writer = web;\n",
      'src/simweb/web.ts': 'export const web = 1;\n',
      'src/store/lock.ts': 'export const lock = 1;\n',
      'src/sink/late.ts': "import { lock } from '../store/lock.js';\nexport const late = lock;\n",
      'src/util/up.ts': "import { parsed } from '../parse/parser.js';\nexport const up = parsed;\n",
      // A cycle of type-only imports: erased by the compiler, and still a cycle.
      'src/text/ta.ts': "import type { B } from './tb.js';\nexport interface A { b?: B }\n",
      'src/text/tb.ts': "import type { A } from './ta.js';\nexport interface B { a?: A }\n",
      'src/cli/format.ts': 'export const format = 1;\n',
      'src/sql/snapshot-db.ts': "import { format } from '../cli/format.js';\nexport const db = format;\n",
      'src/report/figures.ts': 'export const figures = 1;\n',
      'src/report/derived.ts': "import { crawl } from '../../pipelines/crawl.js';\nexport const summary = crawl;\n",
      'pipelines/crawl.ts': "import { summary } from '../src/report/derived.js';\nexport const crawl = 1;\nexport const s = () => summary;\n",
      'pipelines/wide.ts': "export const wide = () => import('../src/report/figures.js');\n",
      'pipelines/lazy.ts': "export const lazy = () => import('../src/report/derived.js');\n",
    };
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      writeFileSync(path.join(dir, name), text);
    }
    symlinkSync(path.join(repoRoot, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    const found = said(cruise(dir, ['src', 'pipelines']));
    expect(found).toEqual(
      expect.arrayContaining([
        'parse-knows-no-network: src/parse/parser.ts → src/fetch/fetcher.ts',
        'lower-layers-stay-below: src/sink/writer.ts → src/simweb/web.ts',
        'product-code-no-simweb: src/sink/writer.ts → src/simweb/web.ts',
        'sql-below-report-and-cli: src/sql/snapshot-db.ts → src/cli/format.ts',
        'report-not-above-cli-or-pipelines: src/report/derived.ts → pipelines/crawl.ts',
        'pipelines-reach-sql-and-report-lazily: pipelines/crawl.ts → src/report/derived.ts',
        'pipelines-one-narrow-entry: pipelines/wide.ts → src/report/figures.ts',
        'stages-import-only-earlier-stages: src/sink/late.ts → src/store/lock.ts',
        'schemas-text-util-below-the-stages: src/util/up.ts → src/parse/parser.ts',
      ]),
    );
    // Where node_modules really is (a symlink is followed) is the machine's business: the start is ours.
    expect(found.some((f) => /^duckdb-only-lazily-below-sql: src\/util\/helper\.ts → (.*\/)?node_modules\/@duckdb\/node-api\//.test(f))).toBe(true);
    expect(found.some((f) => f.startsWith('no-module-cycles: '))).toBe(true);
    expect(found.filter((f) => /^no-module-cycles: src\/text\/t[ab]\.ts → src\/text\/t[ab]\.ts$/.test(f))).not.toEqual([]);
    expect(found.some((f) => f.startsWith('no-folder-cycles: '))).toBe(true);
    expect(found.filter((f) => f.includes('pipelines/lazy.ts'))).toEqual([]);
  }, 200_000);
});
