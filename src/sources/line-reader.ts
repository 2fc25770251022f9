/**
 * Streams the lines of an input list (domain list, app list): a plain file, a `.gz`, the first
 * (or a named) entry of a `.zip`, or stdin (`-`). Nothing is unpacked whole: gzip is inflated as
 * a stream, a zip entry is read through yauzl's entry stream (docs/choices.md#zip-lists: node-stream-zip crashed
 * on early close, yauzl did not). Stopping the iteration early (`break`) closes the file and the
 * zip cleanly. A broken gzip/zip or a missing entry is a `ListReadError` with a stable `code`.
 */
import { createReadStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { once } from 'node:events';
import { createGunzip } from 'node:zlib';
import yauzl from 'yauzl';
import { LineSplitter } from '../text/line-splitter.js';

export type ListReadErrorCode =
  | 'LIST_UNREADABLE' // the file cannot be opened or read (missing, permission, …)
  | 'LIST_CORRUPT_GZIP' // not valid gzip data, or truncated
  | 'LIST_CORRUPT_ZIP' // not a valid zip archive, or a corrupt entry
  | 'LIST_ZIP_NO_ENTRY'; // the zip has no file entry, or not the one asked for

/** An input list that cannot be read as a whole (as opposed to a bad line, which is data). */
export class ListReadError extends Error {
  constructor(
    readonly code: ListReadErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ListReadError';
  }
}

export interface OpenLinesOptions {
  /** Name of the zip entry to read; default: the first file entry. */
  zipEntry?: string;
  /** Longest line kept, in characters; longer lines are cut and flagged `truncated`. @default 65536 */
  maxLineLength?: number;
}

export interface InputLine {
  line: string;
  /** 1-based; CR, LF and CRLF each end one line. */
  lineNo: number;
  /** The line was longer than `maxLineLength` and was cut. */
  truncated?: boolean;
}

export type InputFormat = 'text' | 'gzip' | 'zip';

const GZIP_MAGIC = [0x1f, 0x8b];
const ZIP_MAGICS = [
  [0x50, 0x4b, 0x03, 0x04], // local file header
  [0x50, 0x4b, 0x05, 0x06], // end of central directory (empty archive)
];

/** Format from the first bytes; the extension only matters when the magic is missing (then it is corrupt). */
export function detectFormat(head: Uint8Array, fileName: string): InputFormat {
  const starts = (m: number[]) => head.length >= m.length && m.every((b, i) => head[i] === b);
  if (starts(GZIP_MAGIC)) return 'gzip';
  if (ZIP_MAGICS.some(starts)) return 'zip';
  const lower = fileName.toLowerCase();
  if (lower.endsWith('.gz') && head.length > 0) throw new ListReadError('LIST_CORRUPT_GZIP', `${fileName}: not gzip data (no gzip header)`);
  if (lower.endsWith('.zip') && head.length > 0) throw new ListReadError('LIST_CORRUPT_ZIP', `${fileName}: not a zip archive (no zip header)`);
  return 'text';
}

/**
 * Lines of `input` (a path, or `-` for stdin). The iterable can be iterated once; breaking out
 * of it releases every resource.
 */
export function openLines(input: string, options: OpenLinesOptions = {}): AsyncIterable<InputLine> {
  return {
    async *[Symbol.asyncIterator]() {
      for await (const batch of openLineBatches(input, options)) yield* batch;
    },
  };
}

/**
 * The same lines, in the batches each read chunk yields (hundreds to thousands of lines): one
 * async step per chunk instead of per line, for readers of million-line lists.
 */
export function openLineBatches(input: string, options: OpenLinesOptions = {}): AsyncIterable<InputLine[]> {
  return { [Symbol.asyncIterator]: () => batches(input, options) };
}

async function* batches(input: string, options: OpenLinesOptions): AsyncGenerator<InputLine[]> {
  const opened = await openSource(input, options);
  try {
    yield* splitLines(opened.stream, opened.label, opened.format, options.maxLineLength ?? 65536);
  } finally {
    await opened.close();
  }
}

interface OpenedSource {
  stream: Readable;
  format: InputFormat;
  label: string;
  close(): Promise<void>;
}

async function openSource(input: string, options: OpenLinesOptions): Promise<OpenedSource> {
  if (input === '-') return openStdin(options);
  const head = await readHead(input);
  const format = detectFormat(head, input);
  if (format === 'zip') return openZipEntry(input, input, options.zipEntry, async () => {});
  const file = createReadStream(input, { highWaterMark: 256 * 1024 });
  const stream = format === 'gzip' ? file.pipe(createGunzip()) : file;
  if (format === 'gzip') file.on('error', (err) => stream.destroy(err));
  return { stream, format, label: input, close: async () => destroyAll(file, stream) };
}

async function readHead(file: string): Promise<Uint8Array> {
  let handle;
  try {
    handle = await open(file, 'r');
    const buf = new Uint8Array(4);
    const { bytesRead } = await handle.read(buf, 0, 4, 0);
    return buf.subarray(0, bytesRead);
  } catch (err) {
    throw new ListReadError('LIST_UNREADABLE', `${file}: cannot read (${(err as NodeJS.ErrnoException).code ?? String(err)})`, { cause: err });
  } finally {
    await handle?.close();
  }
}

/**
 * stdin: gzip is inflated as a stream; a zip needs random access (its directory is at the end),
 * so it is spooled to a private temp file first and read from there.
 */
async function openStdin(options: OpenLinesOptions): Promise<OpenedSource> {
  const stdin = process.stdin;
  const first = await firstChunk(stdin);
  const format = detectFormat(first ?? new Uint8Array(0), '-');
  if (first) stdin.unshift(first);
  if (format === 'gzip') {
    const gunzip = createGunzip();
    stdin.pipe(gunzip);
    return { stream: gunzip, format, label: 'stdin', close: async () => { stdin.unpipe(gunzip); gunzip.destroy(); stdin.pause(); } };
  }
  if (format === 'zip') {
    const dir = await mkdtemp(path.join(tmpdir(), 'adsnap-stdin-'));
    const spool = path.join(dir, 'stdin.zip');
    await pipeline(stdin, (await open(spool, 'w')).createWriteStream());
    return openZipEntry(spool, 'stdin', options.zipEntry, () => rm(dir, { recursive: true, force: true }));
  }
  return { stream: stdin, format, label: 'stdin', close: async () => { stdin.pause(); } };
}

function firstChunk(stream: Readable): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const onReadable = () => {
      cleanup();
      resolve((stream.read() as Buffer | null) ?? null);
    };
    const onEnd = () => { cleanup(); resolve(null); };
    const onError = (err: Error) => { cleanup(); reject(new ListReadError('LIST_UNREADABLE', `stdin: ${err.message}`, { cause: err })); };
    const cleanup = () => {
      stream.off('readable', onReadable);
      stream.off('end', onEnd);
      stream.off('error', onError);
    };
    stream.once('readable', onReadable);
    stream.once('end', onEnd);
    stream.once('error', onError);
  });
}

async function openZipEntry(file: string, label: string, wanted: string | undefined, cleanupFile: () => Promise<void>): Promise<OpenedSource> {
  let zip: yauzl.ZipFile;
  try {
    zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
      yauzl.open(file, { lazyEntries: true, autoClose: false }, (err, z) => (err ? reject(err) : resolve(z))),
    );
  } catch (err) {
    await cleanupFile();
    throw new ListReadError('LIST_CORRUPT_ZIP', `${label}: not a readable zip archive (${(err as Error).message})`, { cause: err });
  }
  // Resolved when the archive's file is closed (yauzl's 'close' comes after its fd is, once the
  // entry stream is gone too): a reader stopped early has released the list when it returns.
  const closed = once(zip, 'close').catch(() => undefined); // an 'error' instead: nothing left to wait for
  const closeZip = async () => {
    zip.close();
    await closed;
    await cleanupFile();
  };
  try {
    const entry = await findEntry(zip, wanted);
    if (!entry) {
      const what = wanted === undefined ? 'no file entry' : `no entry named ${JSON.stringify(wanted)}`;
      throw new ListReadError('LIST_ZIP_NO_ENTRY', `${label}: ${what}`);
    }
    const stream = await new Promise<Readable>((resolve, reject) =>
      zip.openReadStream(entry, (err, s) => (err ? reject(err) : resolve(s))),
    );
    return {
      stream,
      format: 'zip',
      label: `${label}:${entry.fileName}`,
      close: async () => {
        stream.destroy();
        await closeZip();
      },
    };
  } catch (err) {
    await closeZip();
    if (err instanceof ListReadError) throw err;
    throw new ListReadError('LIST_CORRUPT_ZIP', `${label}: corrupt zip (${(err as Error).message})`, { cause: err });
  }
}

function findEntry(zip: yauzl.ZipFile, wanted: string | undefined): Promise<yauzl.Entry | null> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      zip.off('entry', onEntry);
      zip.off('end', onEnd);
      zip.off('error', onError);
    };
    const onEntry = (entry: yauzl.Entry) => {
      const isDir = entry.fileName.endsWith('/');
      if (!isDir && (wanted === undefined || entry.fileName === wanted)) {
        cleanup();
        resolve(entry);
      } else {
        zip.readEntry();
      }
    };
    const onEnd = () => { cleanup(); resolve(null); };
    const onError = (err: Error) => { cleanup(); reject(err); };
    zip.on('entry', onEntry);
    zip.on('end', onEnd);
    zip.on('error', onError);
    zip.readEntry();
  });
}

async function* splitLines(stream: Readable, label: string, format: InputFormat, maxLineLength: number): AsyncGenerator<InputLine[]> {
  let batch: InputLine[] = [];
  const splitter = new LineSplitter((line, lineNo, truncated) => {
    batch.push(truncated ? { line, lineNo, truncated } : { line, lineNo });
  }, { maxLineLength });
  try {
    for await (const chunk of stream) {
      splitter.push(chunk as Uint8Array);
      if (batch.length > 0) {
        const out = batch;
        batch = [];
        yield out;
      }
    }
  } catch (err) {
    throw wrapStreamError(err, label, format);
  }
  splitter.end();
  if (batch.length > 0) yield batch;
}

function wrapStreamError(err: unknown, label: string, format: InputFormat): Error {
  if (err instanceof ListReadError) return err;
  const message = (err as Error)?.message ?? String(err);
  if (format === 'gzip' && (err as { errno?: number }).errno !== undefined && (err as NodeJS.ErrnoException).code?.startsWith('Z_')) {
    return new ListReadError('LIST_CORRUPT_GZIP', `${label}: corrupt or truncated gzip (${message})`, { cause: err });
  }
  if (format === 'zip' && !(err as NodeJS.ErrnoException).syscall) {
    return new ListReadError('LIST_CORRUPT_ZIP', `${label}: corrupt zip entry (${message})`, { cause: err });
  }
  return new ListReadError('LIST_UNREADABLE', `${label}: read failed (${message})`, { cause: err });
}

function destroyAll(...streams: Readable[]): void {
  for (const s of streams) if (!s.destroyed) s.destroy();
}

/**
 * One CSV record on one line, RFC 4180 §2: fields split on commas; a field in double quotes may
 * hold commas, and `""` inside it is one quote. Quoted fields spanning lines are not supported
 * (domain and app lists have none). Characters after a closing quote are kept, leniently.
 */
export function parseCsvLine(line: string): string[] {
  if (!line.includes('"')) return line.split(',');
  const out: string[] = [];
  let field = '';
  let i = 0;
  let quoted = false;
  while (i < line.length) {
    const ch = line[i]!;
    if (quoted) {
      if (ch === '"') {
        if (line[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
      } else {
        field += ch;
      }
    } else if (ch === '"' && field.trim() === '') {
      field = '';
      quoted = true;
    } else if (ch === ',') {
      out.push(field);
      field = '';
    } else {
      field += ch;
    }
    i++;
  }
  out.push(field);
  return out;
}
