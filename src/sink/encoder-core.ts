/** Dispatches encoder requests to the open `PartEncoder`s (shared by the worker and inline mode). */
import type { EncoderRequest } from './encoder-protocol.js';
import { PartEncoder, type PartResult } from './part-encoder.js';
import { initZstd } from './zstd.js';

export class EncoderCore {
  private readonly parts = new Map<number, PartEncoder>();
  private ready: Promise<void> | null = null;

  async handle(req: EncoderRequest): Promise<PartResult | undefined> {
    switch (req.op) {
      case 'open':
        await (this.ready ??= initZstd());
        this.parts.set(req.partId, new PartEncoder(req.spec));
        return undefined;
      case 'rows':
        this.part(req.partId).add(req.columns, req.rowCount);
        return undefined;
      case 'finish': {
        const result = this.part(req.partId).finish();
        this.parts.delete(req.partId);
        return result;
      }
      case 'discard':
        this.parts.get(req.partId)?.discard();
        this.parts.delete(req.partId);
        return undefined;
    }
  }

  private part(partId: number): PartEncoder {
    const p = this.parts.get(partId);
    if (!p) throw new Error(`no open part ${partId}`);
    return p;
  }
}
