/**
 * The generated reference pages (docs/reference/{cli,tables,statuses,parse-issues,views}.md) are
 * rendered again in memory from their sources and compared with the checked-in pages, so a flag,
 * column, code or view added without `npm run docs` fails here, naming the page.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderReference } from '../scripts/gen-reference.js';
import { repoRoot } from './helpers/corpus.js';

describe('generated reference pages', async () => {
  const pages = await renderReference();

  it('are the five pages the reference index promises', () => {
    expect(Object.keys(pages).sort()).toEqual(
      ['cli', 'parse-issues', 'statuses', 'tables', 'views'].map((p) => `docs/reference/${p}.md`),
    );
  });

  for (const [rel, want] of Object.entries(pages)) {
    it(`${rel} is up to date`, async () => {
      const have = await readFile(path.join(repoRoot, rel), 'utf8').catch(() => '(missing)');
      if (have !== want) {
        const a = have.split('\n');
        const b = want.split('\n');
        const i = a.findIndex((line, n) => line !== b[n]);
        const at = i < 0 ? Math.min(a.length, b.length) : i;
        expect.fail(
          `${rel} is out of date: run \`npm run docs\` and commit the result.\n` +
            `first difference at line ${at + 1}:\n  checked in: ${a[at] ?? '(end)'}\n  generated:  ${b[at] ?? '(end)'}`,
        );
      }
    });
  }

  it('render the same bytes twice (deterministic)', async () => {
    expect(await renderReference()).toEqual(pages);
  });

  it('cli.md holds every command with its --help text', async () => {
    const { commands } = await import('../src/cli/main.js');
    const cli = pages['docs/reference/cli.md']!;
    for (const [name, load] of Object.entries(commands)) {
      const { command } = await load();
      expect(cli, name).toContain(`## adsnap ${name}\n`);
      expect(cli, name).toContain(command.usage.trimEnd());
    }
  });

  it('tables.md names every table and column of schemas/tables.ts', async () => {
    const { tables } = await import('../schemas/tables.js');
    const md = pages['docs/reference/tables.md']!;
    for (const t of Object.values(tables)) {
      expect(md).toContain(`## ${t.name}\n`);
      for (const c of t.columns) expect(md, `${t.name}.${c.name}`).toContain(`| \`${c.name}\` | ${c.type} |`);
    }
  });

  it("the README's table of what a snapshot holds names every table of schemas/tables.ts, and only those", async () => {
    const { tables } = await import('../schemas/tables.js');
    const readme = await readFile(path.join(repoRoot, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## What a snapshot holds'), readme.indexOf('\n## ', readme.indexOf('## What a snapshot holds') + 1));
    const rows = section.split('\n').filter((l) => l.startsWith('| `'));
    const named = rows.flatMap((l) => [...l.split('|')[1]!.matchAll(/`(\w+)`/g)].map((m) => m[1]!));
    expect(named.sort()).toEqual(Object.keys(tables).sort());
  });

  it('views.md has a section for every view of sql/views.sql that is not a table', async () => {
    const sql = await readFile(path.join(repoRoot, 'sql', 'views.sql'), 'utf8');
    const { tables } = await import('../schemas/tables.js');
    const views = [...sql.matchAll(/^CREATE OR REPLACE VIEW (\w+)/gm)].map((m) => m[1]!).filter((v) => !(v in tables));
    expect(views.length).toBeGreaterThan(8);
    for (const v of views) expect(pages['docs/reference/views.md'], v).toContain(`## ${v}\n`);
  });
});
