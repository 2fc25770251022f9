import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/corpus.js';
import { useTempDirs } from './helpers/tmp.js';

/**
 * The package as the Dockerfile builds it: `npm pack`, the tarball unpacked, its production
 * dependencies installed with `npm ci --omit=dev` from the project's lockfile (offline, from the
 * cache `npm ci` filled: nothing is downloaded), and `adsnap` run from there, outside the checkout.
 * A file the program needs at run time but missing from package.json `files` fails this test.
 */
const tempDir = useTempDirs('package');

function npm(args: string[], cwd: string): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the npm package', () => {
  it('packs, installs with production dependencies only, and runs --version and the demo from the install', () => {
    const dir = tempDir();
    // dist/ is built by `npm test`'s pretest; packing does not build again.
    const packed = npm(['pack', '--ignore-scripts', '--json', '--pack-destination', dir], repoRoot);
    expect(packed.code, packed.stderr).toBe(0);
    const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
    const files = info!.files.map((f) => f.path);
    expect(files).toContain('dist/src/cli/main.js');
    expect(files).toContain('sql/views.sql');
    expect(files.some((f) => f.startsWith('test/') || f.startsWith('bench/') || f.startsWith('src/'))).toBe(false);

    // What a user or the image installs: the tarball's own files, and the production dependencies
    // pinned by the project's lockfile (npm pack leaves the lockfile out).
    const untar = spawnSync('tar', ['-xzf', path.join(dir, info!.filename), '-C', dir], { encoding: 'utf8' });
    expect(untar.status, untar.stderr).toBe(0);
    const app = path.join(dir, 'package');
    copyFileSync(path.join(repoRoot, 'package-lock.json'), path.join(app, 'package-lock.json'));
    const installed = npm(['ci', '--offline', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund'], app);
    expect(installed.code, installed.stderr).toBe(0);
    // Nothing of the development tool chain came with it.
    for (const dev of ['typescript', 'vitest', 'tsx', 'playwright-core']) expect(existsSync(path.join(app, 'node_modules', dev)), dev).toBe(false);

    const bin = path.join(app, 'bin', 'adsnap.js');
    const { version } = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string };
    const v = spawnSync(process.execPath, [bin, '--version'], { cwd: dir, encoding: 'utf8' });
    expect([v.status, v.stdout.trim()]).toEqual([0, expect.stringContaining(version)]);

    // The library by its name, as a project that depends on it imports it: the main export and adsnap/simweb.
    mkdirSync(path.join(dir, 'node_modules'));
    symlinkSync(app, path.join(dir, 'node_modules', 'adsnap'), 'dir');
    const lib = spawnSync(process.execPath, ['--input-type=module', '-e', "const a = await import('adsnap'); const s = await import('adsnap/simweb'); console.log(typeof a.crawl, typeof a.parseAdsTxt, typeof a.tables, typeof a.startSimweb, typeof s.startSimweb)"], { cwd: dir, encoding: 'utf8' });
    expect([lib.status, lib.stdout.trim()], lib.stderr).toEqual([0, 'function function object undefined function']);

    const demo = spawnSync(process.execPath, [bin, 'demo', '--out', 'out'], { cwd: dir, encoding: 'utf8', timeout: 240_000 });
    expect(demo.status, demo.stderr.slice(-2000)).toBe(0);
    expect(demo.stdout).toMatch(/Report \(\d+ figures/);
    expect(existsSync(path.join(dir, 'out', 'report', 'index.html'))).toBe(true);
    expect(readFileSync(path.join(dir, 'out', 'report', 'report.json'), 'utf8')).toContain('"adoption.ads_txt_by_rank"');
  }, 300_000);
});
