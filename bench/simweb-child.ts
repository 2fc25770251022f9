import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './corpus.js';

/**
 * Starts `adsnap simweb ARGS` in a child process (the simulated web in its own process, as a real
 * web would be) and resolves with its first stdout line split into words: the `--connect-to …
 * --cacert …` arguments a crawl needs to reach it.
 */
export async function spawnSimweb(args: readonly string[]): Promise<{ child: ChildProcess; first: string; args: string[] }> {
  const child = spawn(process.execPath, [path.join(repoRoot, 'bin', 'adsnap.js'), 'simweb', ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
  const first = await new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl >= 0) resolve(buf.slice(0, nl));
    });
    child.on('exit', (c) => reject(new Error(`simweb exited ${c}`)));
  });
  return { child, first, args: first.split(' ') };
}
