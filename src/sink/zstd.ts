/**
 * ZSTD for Parquet pages via @bokuweb/zstd-wasm (docs/choices.md#parquet-writer: 21.5 MB vs 53 MB for SNAPPY on
 * 2M ads_records rows). The wasm module must be initialised once per thread before encoding.
 */
import zstd from '@bokuweb/zstd-wasm';
import type { Compressors } from 'hyparquet-writer/src/types.js';

/** Level 3 is zstd's default: most of the size win at a fraction of the CPU of higher levels. */
const LEVEL = 3;
let ready: Promise<void> | null = null;
let initialised = false;

export function initZstd(): Promise<void> {
  ready ??= zstd.init().then(() => {
    initialised = true;
  });
  return ready;
}

export function zstdCompressors(): Compressors {
  if (!initialised) throw new Error('initZstd() must complete before encoding');
  return { ZSTD: (input: Uint8Array) => zstd.compress(input, LEVEL) };
}
