import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/corpus.js';

/**
 * No image can be built on the test machines (no Docker engine), so the Dockerfile is read and held
 * to what it promises: an official Node LTS slim base pinned by tag, a build stage and a runtime
 * stage holding production dependencies only (the same steps test/package.test.ts runs), a
 * non-root user, `adsnap` as the entrypoint and /data as the volume.
 */
const dockerfile = readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8');
const lines = dockerfile
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
const stages: string[][] = [];
for (const l of lines) {
  if (/^FROM\s/i.test(l)) stages.push([]);
  stages[stages.length - 1]?.push(l);
}
const runtime = stages[stages.length - 1]!;
const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { files: string[]; engines: { node: string } };

/**
 * Node's LTS lines and the day each reaches end of life (https://github.com/nodejs/Release). A
 * major not listed here is not an LTS line the image may use: add its row when moving the image.
 */
const NODE_LTS_END_OF_LIFE: Record<number, string> = {
  20: '2026-04-30',
  22: '2027-04-30',
  24: '2028-04-30',
};

describe('Dockerfile', () => {
  it('builds in two stages from an official Node slim image pinned by tag, of an LTS line not past its end of life', () => {
    expect(stages.length).toBe(2);
    const majors = new Set<number>();
    for (const s of stages) {
      const m = /^FROM node:(\d+)\.\d+(?:\.\d+)?-[a-z]+-slim(?:\s+AS\s+\w+)?$/i.exec(s[0]!);
      expect(m, s[0]).not.toBeNull();
      majors.add(Number(m![1]));
    }
    // Both stages run the same Node: the build's output is what the runtime executes.
    expect(majors.size).toBe(1);
    const [major] = [...majors];
    const eol = NODE_LTS_END_OF_LIFE[major!];
    expect(eol, `node ${major} is not an LTS line`).toBeDefined();
    const today = new Date().toISOString().slice(0, 10);
    expect(today <= eol!, `node ${major} reached end of life on ${eol}`).toBe(true);
    expect(dockerfile).not.toMatch(/:latest\b/);
  });

  it('the build stage copies every folder the package ships and packs it; the runtime installs that tarball with production dependencies only', () => {
    const build = stages[0]!.join('\n');
    for (const f of pkg.files) if (f !== 'dist' && f !== 'README.md') expect(build, f).toMatch(new RegExp(`^COPY ${f} ${f}$`, 'm'));
    expect(build).toMatch(/npm ci\b/);
    expect(build).toMatch(/npm run build/);
    expect(build).toMatch(/npm pack\b/);
    const run = runtime.join('\n');
    expect(run).toMatch(/COPY --from=build \/pkg\//);
    expect(run).toMatch(/npm ci --omit=dev --ignore-scripts/);
    expect(run).not.toMatch(/node_modules/);
    expect(run).not.toMatch(/npm run build|tsc\b/);
  });

  it('runs as a non-root user, with adsnap as the entrypoint and /data as the volume', () => {
    const user = runtime.findIndex((l) => /^USER\s/.test(l));
    expect(runtime[user]).toMatch(/^USER (node|\d{3,})$/);
    // Installing happens before the switch to the user; nothing runs as root after it.
    expect(runtime.slice(user).some((l) => /^RUN\s/.test(l))).toBe(false);
    expect(runtime).toContain('VOLUME ["/data"]');
    expect(runtime).toContain('WORKDIR /data');
    expect(runtime.find((l) => l.startsWith('ENTRYPOINT'))).toMatch(/^ENTRYPOINT \["node", "\/opt\/adsnap\/bin\/adsnap\.js"\]$/);
  });

  it('.dockerignore keeps node_modules, build output, snapshots, test and benchmark output out of the context', () => {
    const ignore = readFileSync(path.join(repoRoot, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim());
    // Dependencies, build output, git, snapshots, scratch and benchmark output, logs and tarballs, tests.
    for (const p of ['node_modules', 'dist', 'out', 'snapshots', '.git', '.tmp', '.bench-out', '*.log', '*.tgz', 'test', 'bench']) expect(ignore, p).toContain(p);
  });
});
