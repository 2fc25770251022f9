import { readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from './package-root.js';
import { productToken } from './product-token.js';

export const version: string = JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')).version;
export const defaultUserAgent = `${productToken}/${version} (+https://github.com/adsnap/adsnap)`;
