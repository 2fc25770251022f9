/**
 * Encodes one Parquet part file row group by row group (runs inside the encoder worker, or
 * inline when the worker is disabled). Column chunks arrive in small batches; once
 * `rowGroupRows` rows are buffered they are encoded as one row group (ZSTD, dictionary for
 * `dict: true` columns, min/max statistics) and written straight to the file, so a part never
 * sits whole in memory. hyparquet-writer's `ParquetWriter` calls `writer.flush()` after each row
 * group; our `FileByteWriter` empties its buffer to the file descriptor there.
 */
import { closeSync, fsyncSync, openSync, rmSync, writeSync } from 'node:fs';
import type { KeyValue } from 'hyparquet';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import type { TablePlan } from './parquet-schema.js';
import { zstdCompressors } from './zstd.js';

export interface PartSpec {
  plan: TablePlan;
  tmpPath: string;
  rowGroupRows: number;
  kvMetadata: KeyValue[];
  /** Test/benchmark knob: sleep this long after each row group, as a slow disk would. */
  slowRowGroupMs?: number;
}

export interface PartResult {
  rows: number;
  bytes: number;
  rowGroups: number;
}

/** hyparquet-writer's ByteWriter, emptied into a file descriptor at every row group and at 1 MiB. */
class FileByteWriter extends ByteWriter {
  constructor(private readonly fd: number) {
    super(1 << 20);
  }

  override ensure(size: number): void {
    if (this.index > 1 << 20) this.drain();
    super.ensure(size);
  }

  flush(): void {
    this.drain();
  }

  override finish(): void {
    this.drain();
  }

  private drain(): void {
    let off = 0;
    const bytes = new Uint8Array(this.buffer, 0, this.index);
    while (off < bytes.length) off += writeSync(this.fd, bytes, off, bytes.length - off);
    this.index = 0;
  }
}

export class PartEncoder {
  private readonly fd: number;
  private readonly writer: FileByteWriter;
  private readonly parquet: ParquetWriter;
  private pending: unknown[][] = [];
  private pendingRows = 0;
  private rows = 0;
  private rowGroups = 0;

  constructor(private readonly spec: PartSpec) {
    this.fd = openSync(spec.tmpPath, 'w');
    this.writer = new FileByteWriter(this.fd);
    this.parquet = new ParquetWriter({
      writer: this.writer,
      schema: spec.plan.schema,
      codec: 'ZSTD',
      compressors: zstdCompressors(),
      statistics: true,
      kvMetadata: spec.kvMetadata,
      createdBy: 'adsnap (hyparquet-writer 0.17.0)',
    });
    this.pending = spec.plan.columns.map(() => []);
  }

  /** Adds a batch of rows given as columns (same order as the plan). */
  add(columns: unknown[][], rowCount: number): void {
    for (let c = 0; c < columns.length; c++) {
      const target = this.pending[c]!;
      const src = columns[c]!;
      for (let i = 0; i < src.length; i++) target.push(src[i]);
    }
    this.pendingRows += rowCount;
    while (this.pendingRows >= this.spec.rowGroupRows) this.writeRowGroup(this.spec.rowGroupRows);
  }

  /** Writes the last row group and the footer, fsyncs and closes the file. */
  finish(): PartResult {
    if (this.pendingRows > 0) this.writeRowGroup(this.pendingRows);
    this.parquet.finish();
    fsyncSync(this.fd);
    closeSync(this.fd);
    return { rows: this.rows, bytes: this.writer.offset, rowGroups: this.rowGroups };
  }

  /** Closes and deletes the temporary file. */
  discard(): void {
    try {
      closeSync(this.fd);
    } catch {
      // already closed by finish()
    }
    rmSync(this.spec.tmpPath, { force: true });
  }

  private writeRowGroup(n: number): void {
    const { columns } = this.spec.plan;
    const columnData = columns.map((col, c) => {
      const all = this.pending[c]!;
      const data = n === all.length ? all : all.slice(0, n);
      this.pending[c] = n === all.length ? [] : all.slice(n);
      return col.dictionary ? { name: col.name, data: toParquetValues(col.type, data), encoding: 'RLE_DICTIONARY' as const } : { name: col.name, data: toParquetValues(col.type, data) };
    });
    this.parquet.write({ columnData, rowGroupSize: n });
    this.pendingRows -= n;
    this.rows += n;
    this.rowGroups++;
    if (this.spec.slowRowGroupMs) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, this.spec.slowRowGroupMs);
  }
}

/** int64 values may arrive as numbers; INT64 pages need bigints. Timestamps arrive as µs numbers. */
function toParquetValues(type: string, data: unknown[]): unknown[] {
  if (type !== 'int64') return data;
  return data.map((v) => (typeof v === 'number' ? BigInt(v) : v));
}
