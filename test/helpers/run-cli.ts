import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './corpus.js';

/** The real `adsnap` binary (built by `npm test`'s pretest step). */
export const adsnapBin = path.join(repoRoot, 'bin', 'adsnap.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `adsnap ARGS…` to completion, feeding `input` on stdin. */
export function runCli(args: string[], options: { input?: string; cwd?: string; env?: Record<string, string> } = {}): Promise<CliResult> {
  const child = spawnCli(args, options.cwd, options.env);
  child.stdin!.end(options.input ?? '');
  return finished(child);
}

/** `env`: variables added to this process's environment for the child. */
export function spawnCli(args: string[], cwd?: string, env?: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [adsnapBin, ...args], { cwd: cwd ?? repoRoot, stdio: ['pipe', 'pipe', 'pipe'], env: env ? { ...process.env, ...env } : process.env });
}

export function finished(child: ChildProcess): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
