/**
 * Parquet files of one schema joined into one file without decoding a page: each file's pages
 * are copied as they are, and one footer lists every file's row groups, their byte offsets moved
 * by where the file's pages now start. `adsnap verify` joins its batches' parts this way: a
 * DuckDB COPY from the parts decoded and encoded every row again (2.4 CPU s per million rows).
 *
 * The footers are read and written with hyparquet's and hyparquet-writer's Thrift compact
 * protocol (their field-numbered objects, FileMetaData of parquet.thrift). Only footers this
 * module understands whole are joined: a field that holds an offset it does not move (page
 * indexes, a row group's ordinal, encryption, a column in another file) or a footer that does not
 * come back byte for byte from the round trip makes `concatPlan` return null, and the caller
 * writes the file another way. Nothing is written before that answer.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { deserializeTCompactProtocol } from 'hyparquet/src/thrift.js';
import { serializeTCompactProtocol } from 'hyparquet-writer/src/thrift.js';
import { ByteWriter } from 'hyparquet-writer';

type Thrift = { [key: `field_${number}`]: unknown };

const MAGIC = Buffer.from('PAR1');

/**
 * The fields each struct may hold, by parquet.thrift's field ids, and those among them that are
 * byte offsets in the file. Anything else is a reason not to join.
 */
const FILE_FIELDS = new Set([1, 2, 3, 4, 5, 6, 7]);
/** RowGroup: columns, total_byte_size, num_rows, sorting_columns, file_offset, total_compressed_size (not 7, ordinal). */
const ROW_GROUP_FIELDS = new Set([1, 2, 3, 4, 5, 6]);
/** ColumnChunk: file_offset (deprecated; 0 from DuckDB) and meta_data only (not file_path, page indexes, encryption). */
const CHUNK_FIELDS = new Set([2, 3]);
/** ColumnMetaData: all but none; 9, 10, 11 and 14 are the data, index, dictionary and bloom filter offsets. */
const META_OFFSETS = [9, 10, 11, 14];
const META_FIELDS = new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]);

/** One input file: where its pages lie (from byte 4 to its footer) and its footer, decoded. */
interface Part {
  file: string;
  pagesEnd: number;
  footer: Thrift;
}

/** A join ready to write: the parts in order and the new footer, encoded. */
export interface ConcatPlan {
  parts: readonly Part[];
  footer: Uint8Array;
}

/** `files` joined in order, or null when one of their footers is not one this module can join (see above). */
export async function concatPlan(files: readonly string[]): Promise<ConcatPlan | null> {
  const parts: Part[] = [];
  for (const file of files) {
    const part = await readPart(file);
    if (part === null) return null;
    parts.push(part);
  }
  const first = parts[0]?.footer;
  if (first === undefined) return null;
  const same = (k: number) => parts.every((p) => sameThrift(p.footer[`field_${k}`], first[`field_${k}`]));
  if (![1, 2, 5, 7].every(same)) return null;
  const rowGroups: Thrift[] = [];
  let numRows = 0n;
  let at = MAGIC.length;
  for (const p of parts) {
    const delta = BigInt(at - MAGIC.length);
    for (const rg of p.footer.field_4 as Thrift[]) rowGroups.push(moved(rg, delta));
    numRows += p.footer.field_3 as bigint;
    at += p.pagesEnd - MAGIC.length;
  }
  const footer: Thrift = {};
  for (const [k, v] of Object.entries(first)) footer[k as `field_${number}`] = k === 'field_3' ? numRows : k === 'field_4' ? rowGroups : v;
  return { parts, footer: encode(footer) };
}

/** The joined file's bytes: the magic, each part's pages, the footer, its length, the magic. */
export async function* concatBytes(plan: ConcatPlan): AsyncGenerator<Buffer> {
  yield MAGIC;
  for (const p of plan.parts) {
    if (p.pagesEnd === MAGIC.length) continue;
    for await (const chunk of createReadStream(p.file, { start: MAGIC.length, end: p.pagesEnd - 1 })) yield chunk as Buffer;
  }
  const tail = Buffer.alloc(8);
  tail.writeUInt32LE(plan.footer.byteLength, 0);
  MAGIC.copy(tail, 4);
  yield Buffer.concat([plan.footer, tail]);
}

/** A part's footer when it is one the join understands, else null. */
async function readPart(file: string): Promise<Part | null> {
  const fh = await open(file, 'r');
  try {
    const size = (await fh.stat()).size;
    if (size < 12) return null;
    const ends = Buffer.alloc(8);
    const head = Buffer.alloc(4);
    await fh.read(head, 0, 4, 0);
    await fh.read(ends, 0, 8, size - 8);
    const length = ends.readUInt32LE(0);
    if (!head.equals(MAGIC) || !ends.subarray(4).equals(MAGIC) || length > size - 12) return null;
    const bytes = Buffer.alloc(length);
    await fh.read(bytes, 0, length, size - 8 - length);
    const reader = { view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), offset: 0 };
    const footer = deserializeTCompactProtocol(reader) as Thrift;
    if (reader.offset !== length || !Buffer.from(encode(footer)).equals(bytes) || !joinable(footer)) return null;
    return { file, pagesEnd: size - 8 - length, footer };
  } catch {
    return null;
  } finally {
    await fh.close();
  }
}

/** Whether every struct of the footer holds only fields whose offsets the join moves or that hold none. */
function joinable(footer: Thrift): boolean {
  const only = (t: Thrift, ids: Set<number>) => Object.keys(t).every((k) => ids.has(Number(k.slice('field_'.length))));
  if (!only(footer, FILE_FIELDS) || !Array.isArray(footer.field_4) || typeof footer.field_3 !== 'bigint') return false;
  return (footer.field_4 as Thrift[]).every((rg) => only(rg, ROW_GROUP_FIELDS) && Array.isArray(rg.field_1)
    && (rg.field_1 as Thrift[]).every((c) => only(c, CHUNK_FIELDS) && typeof c.field_3 === 'object' && only(c.field_3 as Thrift, META_FIELDS)));
}

/** A row group whose offsets are moved by `delta` bytes. */
function moved(rg: Thrift, delta: bigint): Thrift {
  const shift = (v: unknown) => (typeof v === 'bigint' ? v + delta : v);
  const columns = (rg.field_1 as Thrift[]).map((c) => {
    const meta: Thrift = { ...(c.field_3 as Thrift) };
    for (const id of META_OFFSETS) if (meta[`field_${id}`] !== undefined) meta[`field_${id}`] = shift(meta[`field_${id}`]);
    // The deprecated ColumnChunk.file_offset: DuckDB writes 0 (no offset); a real one moves too.
    return { ...c, field_2: c.field_2 === 0n ? 0n : shift(c.field_2), field_3: meta };
  });
  return { ...rg, field_1: columns, ...(rg.field_5 === undefined ? {} : { field_5: shift(rg.field_5) }) };
}

function encode(t: Thrift): Uint8Array {
  const w = new ByteWriter();
  serializeTCompactProtocol(w, t);
  return new Uint8Array(w.getBuffer());
}

function sameThrift(a: unknown, b: unknown): boolean {
  if (a === undefined || b === undefined) return a === b;
  return Buffer.from(encode({ field_1: a })).equals(Buffer.from(encode({ field_1: b })));
}
