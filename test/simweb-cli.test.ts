import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimweb } from '../src/simweb/index.js';
import { repoRoot } from './helpers/corpus.js';
import { get } from './simweb-client.js';

// Spawns the real binary: `npm test` builds dist first (pretest); by hand run `npx tsc -p tsconfig.build.json`.
const bin = path.join(repoRoot, 'bin/adsnap.js');

describe('adsnap simweb (CLI, contract §1)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'simweb-cli-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('prints the connect flags as its first line, writes --list, --app-list and --ad-system-list, serves, and stops on SIGTERM', async () => {
    const list = path.join(dir, 'domains.txt');
    const apps = path.join(dir, 'apps.txt');
    const adSystems = path.join(dir, 'ad-systems.txt');
    const child = spawn(process.execPath, [bin, 'simweb', '--hosts', '25', '--seed', 's1', '--list', list, '--app-list', apps, '--ad-system-list', adSystems], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const [first] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
      const m = /^--connect-to :80:127\.0\.0\.1:(\d+) --connect-to :443:127\.0\.0\.1:(\d+) --cacert (\S+)$/.exec(first);
      expect(m, first).not.toBeNull();
      expect(m![1]).toBe(m![2]);
      const ca = await readFile(m![3]!, 'utf8');
      expect(ca).toMatch(/^-----BEGIN CERTIFICATE-----/);

      // The list is written before the first line, and is the library's list for that seed.
      const domains = (await readFile(list, 'utf8')).split('\n').filter(Boolean);
      const lib = await startSimweb({ hosts: 25, seed: 's1' });
      try {
        expect(domains).toEqual([...lib.domains()]);
        expect((await readFile(apps, 'utf8')).split('\n').filter(Boolean)).toEqual([...lib.apps()]);
      } finally {
        await lib.close();
      }
      // Each ad system listed serves a sellers.json; a root domain does not (it answers 404, or redirects to www.).
      const systems = (await readFile(adSystems, 'utf8')).split('\n').filter(Boolean);
      expect(systems.length).toBeGreaterThan(50);
      for (const host of [systems[0]!, systems.at(-1)!]) {
        const sellers = await get(`https://${host}/sellers.json`, { port: Number(m![1]), ca });
        expect(sellers.status).toBe(200);
        expect(JSON.parse(sellers.body.toString())).toHaveProperty('sellers');
      }
      expect((await get(`https://${domains[0]}/sellers.json`, { port: Number(m![1]), ca })).status).not.toBe(200);
      const answer = await get(`https://${domains[0]}/robots.txt`, { port: Number(m![1]), ca });
      expect(answer.error).toBeNull();
      expect(answer.status).not.toBeNull();
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(0);
  });

  it('rejects bad options with exit status 2', () => {
    const r = spawnSync(process.execPath, [bin, 'simweb', '--hosts', 'many'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--hosts');
    const l = spawnSync(process.execPath, [bin, 'simweb', '--latency', '9-1'], { encoding: 'utf8' });
    expect(l.status).toBe(2);
  });
});
