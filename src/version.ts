import { readFileSync } from 'node:fs';

// Read once at load: the package.json two levels up from dist/src/ (or src/ under tsx/vitest).
function readVersion(): string {
  for (const rel of ['../../package.json', '../package.json']) {
    try {
      return JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')).version as string;
    } catch {
      /* try the next location */
    }
  }
  return '0.0.0';
}

export const version = readVersion();
export const productToken = 'adsnap';
export const defaultUserAgent = `adsnap/${version} (+https://github.com/adsnap/adsnap)`;
