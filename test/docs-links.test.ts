/**
 * Every relative link in README.md, deploy/README.md and docs/**\/*.md points to a file that
 * exists (fragments are not checked). Links inside code blocks and inline code are not links.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/corpus.js';

/**
 * Pages other engineers are writing while the docs were restructured. A link to one of
 * them is accepted only while the page does not exist yet; once it does, it is checked like any
 * other. Remove an entry when its page lands.
 */
const PENDING = new Set<string>([]);

function markdownFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(path.join(repoRoot, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) out.push(...markdownFiles(rel));
    else if (e.name.endsWith('.md')) out.push(rel);
  }
  return out;
}

/** The link targets of a Markdown text, code blocks and code spans left out. */
export function linkTargets(markdown: string): string[] {
  const prose = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
}

const files = ['README.md', 'deploy/README.md', ...markdownFiles('docs')];

describe('documentation links', () => {
  it('finds links in prose and not in code', () => {
    expect(linkTargets('see [a](a.md) and ![b](img/b.png "t")\n```\n[c](c.md)\n```\n`[d](d.md)`')).toEqual(['a.md', 'img/b.png']);
  });

  it('the README links to the guides, the reference, design and performance', () => {
    const targets = linkTargets(readFileSync(path.join(repoRoot, 'README.md'), 'utf8'));
    for (const t of ['docs/guide/index.md', 'docs/reference/index.md', 'docs/design.md', 'docs/performance.md', 'docs/reference/cli.md']) {
      expect(targets).toContain(t);
    }
  });

  for (const file of files) {
    it(`${file}: every relative link points to an existing file`, () => {
      const broken: string[] = [];
      for (const target of linkTargets(readFileSync(path.join(repoRoot, file), 'utf8'))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue; // URLs, same-page anchors
        const rel = path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURI(target.split('#')[0]!)));
        if (existsSync(path.join(repoRoot, rel))) continue;
        if (PENDING.has(rel)) continue;
        broken.push(`${target} (→ ${rel})`);
      }
      expect(broken, `broken links in ${file}`).toEqual([]);
    });
  }
});
