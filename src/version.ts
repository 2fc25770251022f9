import { readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from './util/package-root.js';

export const version: string = JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')).version;
/** The robots.txt product token adsnap obeys (RFC 9309 §2.2.1). */
export const productToken = 'adsnap';
export const defaultUserAgent = `adsnap/${version} (+https://github.com/adsnap/adsnap)`;
